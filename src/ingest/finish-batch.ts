/**
 * Everything after parsing, for a batch of parsed documents at once: summary, embeddings,
 * the converted markdown, vectors and the READY commit. A batch costs one LanceDB commit pair (the
 * driver coalesces replacements issued together) and one SQLite transaction whatever its size,
 * which is what makes a thousand small files cheap; a single document is a batch of one.
 *
 * With the built-in models the worker already did the model work (enrich.ts) and this is only
 * bookkeeping. Otherwise model work runs on the server's event loop, so it yields between
 * summaries and between embedding batches (bounded in texts and characters): API requests wait
 * for at most one slice.
 *
 * Split in two so the scheduler can pipeline: prepare() (CPU: summaries, embeddings) of the next
 * batch runs while write() (LanceDB, SQLite) of the previous one is in flight.
 */
import { detectLang } from "../models/lang.ts";
import { markdownKey } from "../store/blob-keys.ts";
import { orderedId } from "../store/ids.ts";
import { dropOwnVectors, md5, onError, type IngestDeps, type JobResult, type ParsedJob } from "./ingest-job.ts";
import { commitReadyMany, setStage, setStages, unclaim, type ChunkRow, type ReadyFields } from "./job-store.ts";
import { keptInline, putDerived } from "./converted.ts";
import { withoutPageMarkers } from "./parsed.ts";
import { offloadPlan, SUMMARY_INPUT_CHARS } from "./enrich.ts";

/** Most texts per embedder call. */
export const EMBED_BATCH = 32;
/** Most characters per embedder call: bounds how long one call holds the event loop. */
export const EMBED_CHARS = 8_000;
/** Chunk rows per SQLite transaction of a batch's commit (about 20–40 ms each). */
export const COMMIT_ROWS = 64;

/** Lets timers, I/O and HTTP requests run before the next slice of model work. */
export const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

export interface PreparedJob extends ParsedJob {
  fields: ReadyFields;
  vectors: Float32Array[];
}

/** Per input item: prepared for write(), or already settled (failed or requeued). */
export type Prepared = (PreparedJob | JobResult)[];

export const isPrepared = (r: PreparedJob | JobResult): r is PreparedJob => "fields" in r;

/** Whether preparing this document is bookkeeping only: its worker made the summary and every vector the table needs. */
export function preparedByWorker(d: IngestDeps, item: ParsedJob): boolean {
  const e = item.enriched;
  return !!e?.vectors && e.summary !== undefined && e.tokens !== undefined && offloadPlan(d.models, d.vectors).embed;
}

export async function prepareBatch(d: IngestDeps, items: ParsedJob[]): Promise<Prepared> {
  const out: Prepared = new Array(items.length);
  // Vectors of the worker are used only while they still match the table(s) written (a rebuild
  // may have started since); its summary, language and tokens always match (fixed per process).
  const workerVectors = offloadPlan(d.models, d.vectors).embed;
  setStages(d.db, items.filter((i) => i.enriched?.summary === undefined).map((i) => ({ job: i.job, done: 0, total: 1 })), "summarising");
  const live: { at: number; item: ParsedJob; fields: ReadyFields; vectors: (Float32Array | undefined)[] }[] = [];
  for (let at = 0; at < items.length; at++) {
    const item = items[at]!;
    const e = item.enriched;
    let slow = false;
    try {
      let plain: string | undefined;
      const text = () => (plain ??= withoutPageMarkers(item.parsed.markdown));
      const lang = e?.lang ?? (item.doc.lang || detectLang(text()));
      let summary = e?.summary;
      if (summary === undefined && d.closing?.()) {
        // Stopping: a server-side summary can take seconds per document (GGUF), and a batch
        // holds many. The rest go back to the queue, attempt unspent, for the next start,
        // so a stop stays within a container's grace period.
        unclaim(d.db, [item.job]);
        out[at] = { outcome: "requeued" };
        continue;
      }
      if (summary === undefined) {
        summary = (await d.models.summariser().summarise(text().slice(0, SUMMARY_INPUT_CHARS), lang)).text;
        slow = true;
      }
      const chunks: ChunkRow[] = [];
      if (summary.trim()) chunks.push({ id: orderedId(), seq: 0, pages: [], hash: md5(summary), kind: "summary", text: summary });
      for (const c of item.parsed.chunks) {
        chunks.push({ id: orderedId(), seq: chunks.length, pages: c.pages, hash: md5(c.text), kind: "chunk", text: c.text });
      }
      const fields: ReadyFields = {
        chunks, corpusId: item.doc.corpus_id, userId: item.doc.user_id, tokens: e?.tokens ?? d.models.tokens().count(text()),
        nbWords: item.parsed.nbWords, nbPages: item.parsed.nbPages, lang, summary,
        markdown: keptInline(item.parsed.markdown) ? item.parsed.markdown : undefined,
      };
      // The worker's vectors cover every row when it made the summary, else the parsed chunks only.
      const vectors = new Array<Float32Array | undefined>(chunks.length);
      if (workerVectors && e?.vectors) {
        const skip = chunks.length - e.vectors.length;
        if (skip !== 0 && (e.summary !== undefined || skip !== 1)) throw new Error(`the worker embedded ${e.vectors.length} texts for ${chunks.length} chunks`);
        e.vectors.forEach((v, i) => (vectors[skip + i] = v));
      }
      live.push({ at, item, fields, vectors });
    } catch (e) {
      out[at] = { outcome: await onError(d, item.job, e) };
      slow = true;
    }
    if (slow || at % 64 === 63) await yieldToLoop();
  }

  // What the worker did not embed, embedded here in slices with yields between.
  const texts = live.flatMap((l, n) => l.fields.chunks.flatMap((c, i) => (l.vectors[i] ? [] : [{ n, i, text: c.text }])));
  try {
    if (texts.length) {
      const owners = live.filter((l) => l.vectors.some((v) => !v));
      setStages(d.db, owners.map((l) => ({ job: l.item.job, done: 0, total: l.fields.chunks.length })), "embedding");
      const embedder = d.models.embedder();
      for (let first = 0; first < texts.length;) {
        let end = first + 1;
        let chars = texts[first]!.text.length;
        while (end < texts.length && end - first < EMBED_BATCH && chars + texts[end]!.text.length <= EMBED_CHARS) chars += texts[end++]!.text.length;
        const part = texts.slice(first, end);
        const got = await embedder.embed(part.map((t) => t.text), "passage");
        part.forEach((t, k) => (live[t.n]!.vectors[t.i] = got[k]!));
        // Progress of a document that spans several calls (a long PDF); small ones go 0 → READY.
        const last = part[part.length - 1]!;
        const l = live[last.n]!;
        if (l.fields.chunks.length > EMBED_BATCH && last.i + 1 < l.fields.chunks.length) setStage(d.db, l.item.job, "embedding", last.i + 1, l.fields.chunks.length);
        first = end;
        await yieldToLoop();
      }
    }
  } catch (e) {
    for (const l of live) out[l.at] = { outcome: await onError(d, l.item.job, e) };
    return out;
  }
  for (const l of live) out[l.at] = { ...l.item, fields: l.fields, vectors: l.vectors as Float32Array[] };
  return out;
}

export async function writeBatch(d: IngestDeps, prepared: Prepared): Promise<JobResult[]> {
  const out: JobResult[] = new Array(prepared.length);
  const ready: { at: number; p: PreparedJob }[] = [];
  prepared.forEach((p, at) => (isPrepared(p) ? ready.push({ at, p }) : (out[at] = p)));
  if (!ready.length) return out;
  // Outcomes of the documents whose commit ran, in `ready` order.
  const committed: boolean[] = [];
  try {
    setStages(d.db, ready.map(({ p }) => ({ job: p.job, done: 0, total: p.fields.chunks.length })), "indexing");
    // Markdown blobs (of large documents: a small one is kept by the commit, converted.ts) and
    // vectors are independent; both precede the commit. The replacements are
    // issued in one synchronous loop so the driver applies them as one delete and one add. All
    // writes settle before a failure is reported, so none is still running once the jobs requeue.
    const written = await Promise.allSettled([
      ...ready.filter(({ p }) => p.fields.markdown === undefined).map(({ p }) => putDerived(d.blobs, markdownKey(p.job.org_id, p.job.document_id, p.job.generation), p.parsed.markdown)),
      ...ready.map(({ p }) => d.vectors.replaceDocument(p.job.org_id, p.job.document_id, p.fields.chunks.map((c, i) => ({
        chunkId: c.id, orgId: p.job.org_id, corpusId: p.doc.corpus_id, documentId: p.job.document_id,
        generation: p.job.generation, text: c.text, vector: p.vectors[i]!,
      })))),
    ]);
    const failed = written.find((w) => w.status === "rejected");
    if (failed) throw failed.reason;
    // Committed in slices with yields between: each document is still atomic on its own, and a
    // large batch does not hold the event loop for the whole of its inserts.
    for (let first = 0; first < ready.length;) {
      let end = first + 1;
      let rows = ready[first]!.p.fields.chunks.length;
      while (end < ready.length && rows + ready[end]!.p.fields.chunks.length <= COMMIT_ROWS) rows += ready[end++]!.p.fields.chunks.length;
      committed.push(...commitReadyMany(d.db, ready.slice(first, end).map(({ p }) => ({ job: p.job, fields: p.fields })), d.now()));
      first = end;
      if (first < ready.length) await yieldToLoop();
    }
  } catch (e) {
    // Only the documents whose commit did not run. Those an earlier slice committed are READY
    // with their job done: handed to onError, that job went back to the queue (or, on a full
    // disk, their vectors were dropped at once), and its rerun, superseded, dropped the vectors
    // of the READY generation: a READY document that no question finds
    // (test/ingest/batch-commit-slice-fails.test.ts).
    for (let k = committed.length; k < ready.length; k++) out[ready[k]!.at] = { outcome: await onError(d, ready[k]!.p.job, e) };
  }
  for (let k = 0; k < committed.length; k++) {
    const { at, p } = ready[k]!;
    if (committed[k]) {
      out[at] = { outcome: "ready", doc: { contentType: p.doc.content_type, nbPages: p.parsed.nbPages, blobKey: p.doc.blob_key } };
    } else {
      await dropOwnVectors(d, p.job);
      out[at] = { outcome: "discarded" };
    }
  }
  return out;
}

export async function finishBatch(d: IngestDeps, items: ParsedJob[]): Promise<JobResult[]> {
  return writeBatch(d, await prepareBatch(d, items));
}
