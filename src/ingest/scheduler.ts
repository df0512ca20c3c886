/**
 * Consumes the `jobs` table in the server process. Parsing (and, with the built-in models, the
 * summary and embeddings: enrich.ts) runs in a worker, so at most `workers` jobs parse at a time;
 * parsed documents then wait (up to a bounded backlog) for the finisher, which takes everything
 * waiting as one batch (finish-batch.ts). While one batch is being written (LanceDB, SQLite),
 * the next one is prepared (summarised and embedded here when the models are not built-in).
 *
 * Fairness: a parse slot goes to the organization with the fewest jobs in flight (parsing,
 * waiting or finishing), ties broken round-robin by organization id after the last one served.
 * So a thousand queued jobs of org A delay org B's single job by at most the A parse already
 * running on each worker, plus one batch of already-parsed documents.
 * Two jobs of one document never run together (a new generation waits for the old job to end).
 *
 * The queue is durable: commit inserts a job row; the scheduler polls for queued rows (an
 * indexed query) and can be woken early with wake(). On start, interrupted jobs are requeued
 * (job-store recoverJobs) and jobs that already used their attempts end FAILED.
 */
import { briefMessage } from "./convert/errors.ts";
import type { Logger } from "../context.ts";
import type { Db } from "../store/db.ts";
import { isParsed, isSmall, parseJob, type IngestDeps, type JobResult, type ParsedJob } from "./ingest-job.ts";
import { prepareBatch, preparedByWorker, writeBatch } from "./finish-batch.ts";
import { claimMany, failDocument, loadDoc, recoverJobs, setStage, unclaim, type JobRow } from "./job-store.ts";
import { planClaims } from "./claim-plan.ts";
import { PIPELINE_DEPTH } from "./pool.ts";
import { renderPreviews, type PreviewJob, type PreviewLimits } from "./previews.ts";
import { endPreviews, MAX_PREVIEW_STARTS, pendingPreviews, wantsPreviews, type PreviewJobRow } from "./preview-jobs.ts";
import { storageFailure } from "../store/storage-errors.ts";

const POLL_MS = 50;
/** Waits while the data volume cannot be written (see pause). */
const PAUSE_MIN_MS = 1_000;
const PAUSE_MAX_MS = 30_000;
/** How soon a failed recovery is tried again. */
const RECOVERY_RETRY_MS = 2_000;
/** Parsed documents allowed to wait for the finisher (memory bound)... */
export const MAX_WAITING_DOCS = 256;
/** ...and their markdown characters. */
export const MAX_WAITING_CHARS = 64 * 2 ** 20;
/** Chunks per batch: bounds one batch's LanceDB add and the latency of the documents in it. */
export const MAX_BATCH_CHUNKS = 4_000;
/**
 * Group commit: while workers are still parsing small documents, the finisher waits up to
 * GATHER_MS for GATHER_DOCS documents before writing a batch. A batch has a fixed cost (a
 * LanceDB commit with its own files, SQLite transactions, the server's turn away from feeding
 * the workers) taken from the same two cores as parsing; writing the first document of a burst
 * alone, then the next few alone, multiplied it. A lone upload (nothing else parsing) is written
 * at once.
 */
export const GATHER_DOCS = 128;
export const GATHER_MS = 250;

export interface Scheduler {
  wake(): void;
  /** Jobs in flight now: parsing, waiting for their batch, or finishing (tests, diagnostics). */
  running(): number;
  /** Why ingestion is paused (the data volume cannot be written), until a document is READY again; null otherwise. */
  paused(): string | null;
  /** Stops claiming, waits for previews to stop; running jobs are abandoned to the next start. */
  close(): Promise<void>;
}

export function startScheduler(deps: IngestDeps & { workers: number; previews: PreviewLimits }): Scheduler {
  // Jobs report a full or read-only data volume here (ingest-job.ts onError), with the error itself.
  const d = { ...deps, volumeFailed: (e: unknown) => pause(e), closing: () => closed };
  const db: Db = d.db;
  const log: Logger = d.log;
  /**
   * Set when the end of a job could not be recorded (its job row stays `running` while nothing
   * works on it) or recovery at start failed: the next ticks run recovery again, for the
   * documents not in flight here, until it succeeds. Without it those documents would stay
   * PROCESSING until a restart.
   */
  let unrecorded = false;
  let nextRecovery = 0;
  const recover = () => {
    try {
      const rec = recoverJobs(db, d.now(), runningDocs);
      if (rec.requeued || rec.enqueued) log.info("ingestion recovery", rec);
      if (!started) failExhausted(d);
      unrecorded = false;
    } catch (e) {
      unrecorded = true;
      nextRecovery = Date.now() + RECOVERY_RETRY_MS;
      // A full or read-only volume pauses claims and says so (status `waiting`, one log line),
      // as it does for a job: recovery is tried again when the pause ends.
      if (storageFailure(e)) pause(e);
      else log.error("ingestion recovery failed", { error: String(e) });
    }
  };
  let started = false;

  const runningByOrg = new Map<string, number>();
  const runningDocs = new Set<string>();
  const previews = new Set<Promise<unknown>>();
  const tasks = new Set<Promise<unknown>>();
  const waiting: ParsedJob[] = [];
  let waitingChars = 0;
  let parsing = 0;
  let parsingLarge = 0;
  let inFlight = 0;
  let finisher: Promise<void> | null = null;
  let changed: (() => void) | undefined; // wakes the gathering finisher
  const notify = () => {
    changed?.();
    changed = undefined;
  };
  /** Until a document is parsed or a parse ends, or `ms` passed. */
  const nextChange = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      changed = () => {
        clearTimeout(t);
        resolve();
      };
    });
  const gather = async () => {
    const until = performance.now() + GATHER_MS;
    // Only small documents are worth waiting for: a large one takes seconds to parse.
    for (let left = GATHER_MS; !closed && parsing > parsingLarge && waiting.length < GATHER_DOCS && left > 0; left = until - performance.now()) await nextChange(left);
  };
  let lastOrg = "";
  let closed = false;

  /**
   * While the data volume is full or read-only nothing is claimed: each claim would fail (or its
   * document would, through no fault of its own). Waits double from 1 s up to 30 s and reset
   * once a document is READY again; one log line per wait.
   */
  let pausedUntil = 0;
  let backoff = 0;
  let pausedFor: string | null = null;
  const pause = (e: unknown) => {
    if (Date.now() < pausedUntil) return; // one wait at a time, however many jobs ran into it
    pausedFor = storageFailure(e) === "readonly" ? "the server's data directory is read-only" : "the server's data disk is full";
    backoff = Math.min(backoff ? backoff * 2 : PAUSE_MIN_MS, PAUSE_MAX_MS);
    pausedUntil = Date.now() + backoff;
    log.error("ingestion paused: the data volume cannot be written", { failure: storageFailure(e), retryInMs: backoff, error: briefMessage(e) });
  };
  recover();
  started = true;

  const backlogRoom = () => waiting.length < MAX_WAITING_DOCS && waitingChars < MAX_WAITING_CHARS;

  const plan = (): JobRow[] =>
    planClaims(db, {
      workers: d.workers, maxAttempts: d.maxAttempts, parsing, parsingLarge, lastOrg, runningByOrg, runningDocs,
      exhausted: (j) => failDocument(db, j, `ingestion failed: interrupted ${j.attempts} times`, d.now()),
    });

  /**
   * Claims while a worker is free, or, for small documents, while workers can queue more. Small
   * documents are claimed in groups (one transaction): once the workers' queues are full, the
   * next claim waits until they have drained to half, so each refill takes several jobs at once
   * while every worker still has work queued.
   */
  const tick = () => {
    if (closed || Date.now() < pausedUntil) return;
    if (unrecorded && Date.now() >= nextRecovery) recover();
    if (!backlogRoom()) return;
    if (parsing >= d.workers && parsing > (d.workers * PIPELINE_DEPTH) / 2) return;
    try {
      const jobs = claimMany(db, plan(), d.now());
      if (jobs.length) lastOrg = jobs[jobs.length - 1]!.org_id;
      for (const job of jobs) start(job);
    } catch (e) {
      if (storageFailure(e)) pause(e);
      else log.error("ingestion scheduler error", { error: String(e) });
    }
  };

  const track = (p: Promise<unknown>) => {
    tasks.add(p);
    void p.finally(() => tasks.delete(p));
  };

  const settle = (job: JobRow, r: JobResult) => {
    inFlight--;
    runningByOrg.set(job.org_id, (runningByOrg.get(job.org_id) ?? 1) - 1);
    runningDocs.delete(job.document_id);
    if (r.outcome === "ready") {
      backoff = 0;
      pausedFor = null;
    }
    if (r.outcome === "ready" && r.doc && wantsPreviews(r.doc.contentType, r.doc.nbPages) && !closed) {
      preview({ orgId: job.org_id, documentId: job.document_id, generation: job.generation, blobKey: r.doc.blobKey, nbPages: r.doc.nbPages });
    }
  };

  const preview = (job: PreviewJob) => {
    const p = renderPreviews(d, job, d.previews);
    previews.add(p);
    void p.finally(() => previews.delete(p));
  };

  /**
   * A parsed document whose summary the server still has to make (a GGUF or remote summariser)
   * may wait minutes behind others for that model: its status says so, instead of the last stage
   * its worker reported (`converting` 0 of 1 for a small file). Best effort: a failed write of
   * progress must not fail the document.
   */
  const awaitingServer = (p: ParsedJob) => {
    if (p.enriched?.summary !== undefined) return;
    try {
      setStage(db, p.job, "summarising", 0, 1);
    } catch {
      // progress only
    }
  };

  const start = (job: JobRow) => {
    const large = !isSmall(job.size, job.content_type);
    parsing++;
    if (large) parsingLarge++;
    inFlight++;
    runningByOrg.set(job.org_id, (runningByOrg.get(job.org_id) ?? 0) + 1);
    runningDocs.add(job.document_id);
    track(parseJob(d, job)
      .then((r) => {
        if (isParsed(r)) {
          awaitingServer(r);
          waiting.push(r);
          waitingChars += r.parsed.markdown.length;
          notify();
          runFinisher();
        } else settle(job, r);
      })
      .catch((e) => settle(job, crashed([job], e)[0]!))
      .finally(() => {
        parsing--;
        if (large) parsingLarge--;
        notify();
        tick();
      }));
  };

  /**
   * The oldest waiting documents, up to MAX_BATCH_CHUNKS chunks but at least one; with `room`,
   * only those fitting in it and accepted by `fits` (documents joining a batch already taken).
   */
  const takeBatch = (room?: number, fits: (p: ParsedJob) => boolean = () => true): ParsedJob[] => {
    let n = 0;
    let chunks = 0;
    const limit = room ?? MAX_BATCH_CHUNKS;
    while (n < waiting.length && fits(waiting[n]!) && ((n === 0 && room === undefined) || chunks + waiting[n]!.parsed.chunks.length <= limit)) chunks += waiting[n++]!.parsed.chunks.length;
    const batch = waiting.splice(0, n);
    for (const b of batch) waitingChars -= b.parsed.markdown.length;
    return batch;
  };

  const settleBatch = (batch: ParsedJob[], results: JobResult[]) => batch.forEach((b, i) => settle(b.job, results[i]!));

  /**
   * A step outside the per-document error handling threw (a bug, a storage failure): its
   * documents end FAILED with the reason instead of staying PROCESSING until the next restart.
   */
  const crashed = (jobs: JobRow[], e: unknown): JobResult[] => {
    if (storageFailure(e)) {
      // Not the documents' fault: back to the queue, attempt unspent, once the volume is writable.
      pause(e);
      try {
        unclaim(db, jobs);
      } catch {
        unrecorded = true;
      }
      return jobs.map(() => ({ outcome: "deferred" }));
    }
    log.error("ingestion batch crashed", { error: String((e as Error)?.stack ?? e) });
    const reason = `ingestion failed: internal error while processing the document (${briefMessage(e)})`;
    return jobs.map((job) => {
      try {
        failDocument(db, job, reason, d.now());
      } catch (f) {
        unrecorded = true;
        log.error("could not record an ingestion failure", { documentId: job.document_id, error: String(f) });
      }
      return { outcome: "failed" };
    });
  };
  const crashedBatch = (batch: ParsedJob[], e: unknown) => settleBatch(batch, crashed(batch.map((b) => b.job), e));

  /** One loop at a time: prepare batch k+1 while batch k is written; writes stay in order. */
  const runFinisher = () => {
    if (finisher) return;
    finisher = (async () => {
      let writing: Promise<void> = Promise.resolve();
      while (waiting.length && !closed) {
        await gather();
        const batch = takeBatch();
        tick(); // the backlog shrank: parse slots may open again
        let prepared;
        try {
          prepared = await prepareBatch(d, batch);
        } catch (e) {
          crashedBatch(batch, e);
          continue;
        }
        await writing;
        // Documents parsed while the previous batch was being written join this one when their
        // worker already did the model work (preparing them is bookkeeping): one batch's fixed
        // cost for both instead of one each.
        for (;;) {
          const used = batch.reduce((n, b) => n + b.parsed.chunks.length, 0);
          const more = takeBatch(MAX_BATCH_CHUNKS - used, (p) => preparedByWorker(d, p));
          if (!more.length || closed) break;
          tick();
          batch.push(...more);
          try {
            prepared.push(...(await prepareBatch(d, more)));
          } catch (e) {
            crashedBatch(more, e);
            batch.length -= more.length;
            break;
          }
        }
        writing = writeBatch(d, prepared)
          .then((results) => settleBatch(batch, results))
          .catch((e) => crashedBatch(batch, e))
          .finally(tick);
      }
      await writing;
    })().finally(() => {
      finisher = null;
      if (waiting.length && !closed) runFinisher();
      tick();
    });
    track(finisher);
  };

  /** Previews a previous run left unfinished (preview-jobs.ts), queued behind ingestion in the pool. */
  function resumePreviews() {
    let rows: PreviewJobRow[];
    try {
      rows = pendingPreviews(db);
    } catch (e) {
      return log.error("could not read the previews left to render", { error: String(e) });
    }
    for (const row of rows) {
      const key = { orgId: row.org_id, documentId: row.document_id, generation: row.generation };
      try {
        const doc = loadDoc(db, row.org_id, row.document_id);
        if (!doc || doc.deleted_at !== null || doc.generation !== row.generation || doc.status !== "READY") {
          endPreviews(db, key);
        } else if (row.starts >= MAX_PREVIEW_STARTS) {
          endPreviews(db, key);
          log.error("previews given up: their rendering was interrupted at every start", { documentId: row.document_id, generation: row.generation, starts: row.starts, nextPage: row.next_page });
        } else {
          preview({ ...key, blobKey: doc.blob_key, nbPages: doc.nb_pages });
        }
      } catch (e) {
        log.error("could not resume a document's previews", { documentId: row.document_id, error: String(e) });
      }
    }
  }

  resumePreviews();
  const timer = setInterval(tick, POLL_MS);
  tick();

  return {
    wake: () => queueMicrotask(tick),
    running: () => inFlight,
    paused: () => pausedFor,
    async close() {
      closed = true;
      clearInterval(timer);
      // Killing the workers ends parsing at once; a batch past parsing finishes its commit.
      await d.pool.close();
      await Promise.allSettled([...tasks, ...previews]);
      // Parsed documents that never reached a batch go back to the queue, attempt unspent
      // (or, if that cannot be written, to the next start's recovery).
      try {
        unclaim(db, waiting.splice(0).map((w) => w.job));
      } catch (e) {
        log.error("could not requeue parsed documents at shutdown; the next start will", { error: String(e) });
      }
    },
  };
}

/** Jobs requeued by recovery that already used every attempt end FAILED now, not after another crash. */
function failExhausted(d: IngestDeps) {
  const rows = d.db
    .query<JobRow, [number]>("SELECT id, org_id, document_id, generation, state, attempts FROM jobs WHERE state = 'queued' AND attempts >= ?")
    .all(d.maxAttempts);
  for (const j of rows) {
    failDocument(d.db, j, `ingestion failed: the server stopped during ingestion ${j.attempts} times`, d.now());
  }
}
