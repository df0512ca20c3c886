/**
 * One ingestion job, in the server process: parse in a worker, then summary, embeddings, vectors
 * and the commit. Write order makes a retry idempotent after a crash at any point:
 *   1. the converted markdown blob is written (keyed by generation: overwriting is harmless);
 *   2. the document's vectors are replaced in one LanceDB commit (delete every row of the
 *      document, leftovers of an interrupted attempt included, then add);
 *   3. ONE SQLite transaction inserts the chunk rows and sets READY (job-store commitReady).
 * Before 3 the document is PROCESSING and its job queued/running, so a restart redoes it;
 * after 3 chunk rows and vectors agree. A superseded job removes only its own generation's vectors.
 */
import { createHash } from "node:crypto";
import type { Logger } from "../context.ts";
import type { ModelRegistry } from "../models/registry.ts";
import { detectLang } from "../models/lang.ts";
import type { BlobStore } from "../store/blob.ts";
import { markdownKey } from "../store/blob-keys.ts";
import type { Db } from "../store/db.ts";
import { fromJson } from "../store/db.ts";
import { orderedId } from "../store/ids.ts";
import type { LanceIndex } from "../store/lance.ts";
import { commitReady, endJob, failDocument, isCurrent, loadDoc, setStage, type ChunkRow, type JobRow } from "./job-store.ts";
import { IngestFailure, withoutPageMarkers, type ParsedDocument } from "./pipeline.ts";
import { WorkerCrash, type WorkerPool } from "./pool.ts";

export const EMBED_BATCH = 32;
/** The summariser reads at most this much of the document: bounded time on a 10 MB file, and
 *  more than any local model's context anyway. */
export const SUMMARY_INPUT_CHARS = 200_000;

export interface IngestDeps {
  db: Db;
  blobs: BlobStore;
  vectors: LanceIndex;
  models: ModelRegistry;
  pool: WorkerPool;
  now: () => number;
  log: Logger;
  maxAttempts: number;
}

export type JobOutcome = "ready" | "failed" | "discarded" | "requeued";

export const md5 = (text: string) => createHash("md5").update(text).digest("hex");

export async function runJob(d: IngestDeps, job: JobRow): Promise<{ outcome: JobOutcome; doc?: { contentType: string; nbPages: number; blobKey: string } }> {
  const doc = loadDoc(d.db, job.org_id, job.document_id);
  if (!isCurrent(doc, job)) {
    endJob(d.db, job, "discarded", d.now());
    return { outcome: "discarded" };
  }
  try {
    setStage(d.db, job, "converting", 0, 1);
    const path = d.blobs.filePath?.(doc.blob_key);
    const bytes = path ? undefined : ((await d.blobs.get(doc.blob_key)) ?? undefined);
    const parsed = (await d.pool.run(
      { type: "parse", path, bytes, contentType: doc.content_type, chunk: fromJson(doc.chunk, null) },
      { onMessage: (m) => m.type === "stage" && setStage(d.db, job, m.stage, 0, 1) },
    )) as ParsedDocument;

    const plain = withoutPageMarkers(parsed.markdown);
    const lang = doc.lang || detectLang(plain);
    setStage(d.db, job, "summarising", 0, 1);
    const summary = (await d.models.summariser().summarise(plain.slice(0, SUMMARY_INPUT_CHARS), lang)).text;

    const chunks: ChunkRow[] = [];
    if (summary.trim()) chunks.push({ id: orderedId(), seq: 0, pages: [], hash: md5(summary), kind: "summary", text: summary });
    for (const c of parsed.chunks) {
      chunks.push({ id: orderedId(), seq: chunks.length, pages: c.pages, hash: md5(c.text), kind: "chunk", text: c.text });
    }

    const embedder = d.models.embedder();
    const vectors: Float32Array[] = [];
    for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
      setStage(d.db, job, "embedding", i, chunks.length);
      vectors.push(...(await embedder.embed(chunks.slice(i, i + EMBED_BATCH).map((c) => c.text), "passage")));
    }
    setStage(d.db, job, "indexing", 0, chunks.length);
    await d.blobs.put(markdownKey(job.org_id, job.document_id, job.generation), parsed.markdown);
    await d.vectors.replaceDocument(job.org_id, job.document_id, chunks.map((c, i) => ({
      chunkId: c.id, orgId: job.org_id, corpusId: doc.corpus_id, documentId: job.document_id,
      generation: job.generation, text: c.text, vector: vectors[i]!,
    })));
    const ok = commitReady(d.db, job, {
      chunks, corpusId: doc.corpus_id, userId: doc.user_id, tokens: d.models.tokens().count(plain),
      nbWords: parsed.nbWords, nbPages: parsed.nbPages, lang, summary,
    }, d.now());
    if (!ok) {
      await dropOwnVectors(d, job);
      return { outcome: "discarded" };
    }
    return { outcome: "ready", doc: { contentType: doc.content_type, nbPages: parsed.nbPages, blobKey: doc.blob_key } };
  } catch (e) {
    return { outcome: await onError(d, job, e) };
  }
}

async function dropOwnVectors(d: IngestDeps, job: JobRow) {
  // Only this generation's rows: a newer generation's vectors must survive a superseded job.
  await d.vectors.deleteDocument(job.org_id, job.document_id, job.generation).catch(() => {});
}

async function onError(d: IngestDeps, job: JobRow, e: unknown): Promise<JobOutcome> {
  if (e instanceof IngestFailure) {
    await dropOwnVectors(d, job);
    return failDocument(d.db, job, e.message, d.now()) ? "failed" : "discarded";
  }
  // A crash or an infrastructure error may not be the document's fault: retry, then give up.
  const msg = e instanceof Error ? e.message : String(e);
  d.log.error("ingestion attempt failed", { documentId: job.document_id, attempt: job.attempts, error: msg });
  if (job.attempts < d.maxAttempts) {
    endJob(d.db, job, "queued", d.now(), msg);
    return "requeued";
  }
  await dropOwnVectors(d, job);
  const reason = e instanceof WorkerCrash
    ? `ingestion failed: the document crashed the ingestion worker ${job.attempts} times`
    : `ingestion failed after ${job.attempts} attempts: ${msg}`;
  return failDocument(d.db, job, reason, d.now()) ? "failed" : "discarded";
}
