/**
 * One ingestion job, in the server process. Parsing runs in a worker (parseJob); everything
 * after it runs in batches of parsed documents (finish-batch.ts), so many small documents share
 * one LanceDB commit and one SQLite transaction. Write order makes a retry idempotent after a
 * crash at any point:
 *   1. the converted markdown blob is written (keyed by generation: overwriting is harmless);
 *   2. the document's vectors are replaced in one LanceDB commit (delete every row of the
 *      document, leftovers of an interrupted attempt included, then add) — shared by the batch;
 *   3. ONE SQLite transaction inserts the chunk rows and sets READY (job-store commitReadyMany).
 * Before 3 the document is PROCESSING and its job queued/running, so a restart redoes it;
 * after 3 chunk rows and vectors agree. A superseded job removes only its own generation's vectors.
 */
import { briefMessage } from "./convert/errors.ts";
import { createHash } from "node:crypto";
import type { Logger } from "../context.ts";
import type { ModelRegistry } from "../models/registry.ts";
import type { BlobStore } from "../store/blob.ts";
import type { Db } from "../store/db.ts";
import { fromJson } from "../store/db.ts";
import type { LanceIndex } from "../store/lance.ts";
import { finishBatch } from "./finish-batch.ts";
import { chargeAttempt, endJob, failDocument, isCurrent, loadDoc, setStage, unclaim, type DocRow, type JobRow, type Stage } from "./job-store.ts";
import { storageFailure } from "../store/storage-errors.ts";
import { mediaType } from "./formats.ts";
import { IngestFailure, type ParsedDocument } from "./parsed.ts";
import { assembleEnriched, offloadPlan, offloadsAny, type Enriched, type EnrichedWire } from "./enrich.ts";
import { WorkerAborted, WorkerCrash, WorkerExited, type WorkerPool } from "./pool.ts";

export interface IngestDeps {
  db: Db;
  blobs: BlobStore;
  vectors: LanceIndex;
  models: ModelRegistry;
  pool: WorkerPool;
  now: () => number;
  log: Logger;
  maxAttempts: number;
  /** Told of every failure of the data volume (full, read-only) a job ran into: the scheduler pauses on it. */
  volumeFailed?: (e: unknown) => void;
  /** True once the server is stopping: model work not yet begun is left for the next start. */
  closing?: () => boolean;
}

/** `deferred`: requeued, attempt unspent, because the data volume is full or read-only (not the document's fault). */
export type JobOutcome = "ready" | "failed" | "discarded" | "requeued" | "deferred";

export interface JobResult {
  outcome: JobOutcome;
  doc?: { contentType: string; nbPages: number; blobKey: string };
}

/** A job whose document is parsed and waits for its batch. */
export interface ParsedJob {
  job: JobRow;
  doc: DocRow;
  parsed: ParsedDocument;
  /** What the worker's built-in models computed (enrich.ts); finish-batch computes the rest. */
  enriched?: Enriched;
}

/**
 * Text originals up to this size are small: parsing them takes milliseconds, so one may queue
 * behind another in a worker. Binary formats never are (a small PDF can hold many pages).
 */
export const SMALL_DOC_BYTES = 64 * 1024;
const TEXT_TYPES = new Set(["text/markdown", "text/plain", "text/csv", "text/html", "application/json"]);
export const isSmall = (size: number | null | undefined, contentType: string | null | undefined) =>
  size != null && size <= SMALL_DOC_BYTES && TEXT_TYPES.has(mediaType(contentType ?? ""));

export const md5 = (text: string) => createHash("md5").update(text).digest("hex");

/** Parses the document of a claimed job in a worker; a settled result when it ended there. */
export async function parseJob(d: IngestDeps, job: JobRow): Promise<ParsedJob | JobResult> {
  const doc = loadDoc(d.db, job.org_id, job.document_id);
  if (!isCurrent(doc, job)) {
    endJob(d.db, job, "discarded", d.now());
    return { outcome: "discarded" };
  }
  try {
    const path = d.blobs.filePath?.(doc.blob_key);
    const bytes = path ? undefined : ((await d.blobs.get(doc.blob_key)) ?? undefined);
    const small = isSmall(doc.size, doc.content_type);
    const plan = offloadPlan(d.models, d.vectors);
    const parts: Float32Array[] = [];
    const markdownParts: string[] = [];
    const chunkParts: ParsedDocument["chunks"][] = [];
    const { enriched, inParts, ...parsed } = (await d.pool.run(
      {
        type: "parse", path, bytes, contentType: doc.content_type, chunk: fromJson(doc.chunk, null),
        enrich: offloadsAny(plan) ? { lang: doc.lang, ...plan } : undefined,
        // A small document goes from `converting` (set by claim) to its batch's stages in
        // milliseconds: a write per step would cost more than the step.
        progress: !small,
        inParts: true,
      },
      {
        small,
        onStart: () => chargeAttempt(d.db, job),
        onMessage: (m) => {
          if (m.type === "vectors") parts.push(m.data);
          else if (m.type === "markdown") markdownParts.push(m.part);
          else if (m.type === "chunks") chunkParts.push(m.chunks);
          // A bare `converting` repeats what claim wrote; with counts it is a PDF's pages read.
          else if (m.type === "stage" && (m.stage !== "converting" || m.total !== undefined)) progress(d, job, m.stage, m.done ?? 0, m.total ?? 1);
        },
      },
    )) as ParsedDocument & { enriched?: EnrichedWire; inParts?: true };
    if (inParts) {
      parsed.markdown = markdownParts.join("");
      parsed.chunks = chunkParts.flat();
    }
    return { job, doc, parsed, enriched: enriched && assembleEnriched(enriched, parts) };
  } catch (e) {
    return { outcome: await onError(d, job, e) };
  }
}

/**
 * Progress is advisory: a write that fails (a full disk) must not fail the parse it reports on,
 * and it runs in the worker's IPC callback, where a throw would end the server process.
 */
function progress(d: IngestDeps, job: JobRow, stage: Stage, done: number, total: number) {
  try {
    setStage(d.db, job, stage, done, total);
  } catch {
    // The job's end is recorded (or recovered) separately.
  }
}

export const isParsed = (r: ParsedJob | JobResult): r is ParsedJob => "parsed" in r;

/** One job end to end (tests and callers without a batch): parse, then a batch of one. */
export async function runJob(d: IngestDeps, job: JobRow): Promise<JobResult> {
  const r = await parseJob(d, job);
  if (!isParsed(r)) return r;
  return (await finishBatch(d, [r]))[0]!;
}

export async function dropOwnVectors(d: IngestDeps, job: JobRow) {
  // Only this generation's rows: a newer generation's vectors must survive a superseded job.
  await d.vectors.deleteDocument(job.org_id, job.document_id, job.generation).catch(() => {});
}

export async function onError(d: IngestDeps, job: JobRow, e: unknown): Promise<JobOutcome> {
  if (e instanceof IngestFailure) {
    await dropOwnVectors(d, job);
    return failDocument(d.db, job, e.message, d.now()) ? "failed" : "discarded";
  }
  if (!(e instanceof WorkerCrash) && storageFailure(e)) {
    // The disk is full or read-only: the document did nothing wrong. The scheduler pauses and
    // retries once space is back, without spending an attempt. (Workers write nothing to the
    // data volume, and their messages may quote the document: those are never taken for this.)
    d.volumeFailed?.(e);
    await dropOwnVectors(d, job);
    unclaim(d.db, [job]);
    return "deferred";
  }
  if (e instanceof WorkerAborted) {
    // Queued behind another document that stopped the worker: this attempt never started.
    unclaim(d.db, [job]);
    return "requeued";
  }
  // A crash or an infrastructure error may not be the document's fault: retry, then give up.
  chargeAttempt(d.db, job); // a request that failed had started, whether or not its start was seen
  const msg = e instanceof Error ? e.message : String(e);
  d.log.error("ingestion attempt failed", { documentId: job.document_id, attempt: job.attempts, error: msg });
  if (job.attempts < d.maxAttempts) {
    endJob(d.db, job, "queued", d.now(), msg);
    return "requeued";
  }
  await dropOwnVectors(d, job);
  // The pool also reports a worker's error answer (a stack, the process alive) as a WorkerCrash: only a
  // process that exited is a crash, anything else is named by the first line of its message.
  const exited = e instanceof WorkerExited;
  const reason = exited
    ? `ingestion failed: the document crashed the ingestion worker ${job.attempts} times`
    : `ingestion failed after ${job.attempts} attempts: ${briefMessage(e)}`;
  return failDocument(d.db, job, reason, d.now()) ? "failed" : "discarded";
}
