/**
 * SQL of the ingestion side: jobs, the document columns ingestion owns (status, counters,
 * summary, progress) and chunk rows. Every write that ends a job re-checks, inside its
 * transaction, that the job is still about the document's current generation, so a late or
 * superseded job can never overwrite newer state.
 *
 * Job states: queued → running → done | failed | discarded (superseded or deleted document).
 */
import type { SQLQueryBindings, Statement } from "bun:sqlite";
import type { Db } from "../store/db.ts";
import { insertChunkSets } from "../chunks/bulk.ts";
import { recordUsage } from "../usage/record.ts";
import { liveCorpus } from "../corpus/drops.ts";
import { enqueuePreviews, wantsPreviews } from "./preview-jobs.ts";
import type { PurgeRule } from "../store/purge.ts";

const statements = new WeakMap<Db, Map<string, Statement>>();

/**
 * A prepared statement kept for the life of the connection. bun:sqlite's own query() cache holds
 * only a handful of statements and a busy server uses many more, so without this every call
 * re-prepared (and an INSERT INTO chunks recompiles its triggers each time).
 */
function sql<T = unknown, P extends SQLQueryBindings[] = SQLQueryBindings[]>(db: Db, text: string): Statement<T, P> {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let st = m.get(text);
  if (!st) m.set(text, (st = db.prepare(text)));
  return st as unknown as Statement<T, P>;
}

export interface JobRow {
  id: number;
  org_id: string;
  document_id: string;
  generation: number;
  state: string;
  attempts: number;
  /** Bytes and type of the original (queuedOf only): small text files may queue in a busy worker. */
  size?: number | null;
  content_type?: string | null;
  /** In memory: this claim's attempt is recorded (a worker began the job), so giving the job back refunds it. */
  charged?: boolean;
}

/**
 * A job that ended (done, failed, discarded) is never read again: recovery, the scheduler and a
 * document's queue position look only at queued and running jobs, and what a client sees of the
 * outcome (status, statusMsg, counters, usage events) was written to the document and the usage
 * tables in the transaction that ended the job. Ended is final: nothing sets such a job back.
 */
export const FINISHED_JOBS: PurgeRule = {
  table: "jobs",
  spent: "state IN ('done', 'failed', 'discarded') AND finished_at <= $cutoff",
};

export interface DocRow {
  id: string;
  org_id: string;
  corpus_id: string;
  content_type: string;
  status: string;
  generation: number;
  deleted_at: number | null;
  chunk: string | null;
  lang: string | null;
  user_id: string | null;
  blob_key: string;
  size: number | null;
  nb_pages: number;
}

export type Stage = "converting" | "chunking" | "summarising" | "embedding" | "indexing";

export interface ChunkRow {
  id: string;
  seq: number;
  pages: number[];
  hash: string;
  kind: "summary" | "chunk";
  text: string;
}

export interface ReadyFields {
  chunks: ChunkRow[];
  corpusId: string;
  userId: string | null;
  tokens: number;
  nbWords: number;
  nbPages: number;
  lang: string;
  summary: string;
  /** The converted markdown when it is kept in the database (converted.ts), else undefined: it is a blob. */
  markdown?: string;
}

/** deleted_at is the corpus' when the corpus is deleted: its documents are marked in the background (corpus/drops.ts). */
export function loadDoc(db: Db, orgId: string, docId: string): DocRow | null {
  return sql<DocRow, [string, string]>(db,
    `SELECT d.id, d.org_id, d.corpus_id, d.content_type, d.status, d.generation,
       COALESCE(d.deleted_at, (SELECT k.deleted_at FROM corpora k WHERE k.id = d.corpus_id AND k.org_id = d.org_id)) AS deleted_at,
       d.chunk, d.lang, d.user_id, d.blob_key, d.size, d.nb_pages
     FROM documents d WHERE d.org_id = ? AND d.id = ?`,
  ).get(orgId, docId);
}

/** The job still describes the document: same generation, PROCESSING, not deleted. */
export function isCurrent(doc: DocRow | null, job: JobRow): doc is DocRow {
  return !!doc && doc.deleted_at === null && doc.status === "PROCESSING" && doc.generation === job.generation;
}

export function setStage(db: Db, job: JobRow, stage: Stage, done: number, total: number): void {
  sql(db,
    `UPDATE documents SET stage = ?, stage_done = ?, stage_total = ?
     WHERE org_id = ? AND id = ? AND generation = ? AND status = 'PROCESSING'`,
  ).run(stage, done, total, job.org_id, job.document_id, job.generation);
}

export function endJob(db: Db, job: JobRow, state: "done" | "failed" | "discarded" | "queued", now: number, error?: string): void {
  sql(db, "UPDATE jobs SET state = ?, finished_at = ?, error = ? WHERE id = ?").run(
    state, state === "queued" ? null : now, error ?? null, job.id);
}

/** Marks the document FAILED with a reason if the job is still current. Returns whether it was. */
export function failDocument(db: Db, job: JobRow, reason: string, now: number): boolean {
  return db.transaction(() => {
    const current = isCurrent(loadDoc(db, job.org_id, job.document_id), job);
    if (current) {
      sql(db,
        `UPDATE documents SET status = 'FAILED', status_msg = ?, stage = NULL, stage_done = NULL, stage_total = NULL, updated_at = ?
         WHERE org_id = ? AND id = ?`,
      ).run(reason, now, job.org_id, job.document_id);
    }
    endJob(db, job, current ? "failed" : "discarded", now, reason);
    return current;
  }).immediate();
}

/** One stage for many jobs in one transaction (a batch moving on together). */
export function setStages(db: Db, rows: { job: JobRow; done: number; total: number }[], stage: Stage): void {
  if (!rows.length) return;
  db.transaction(() => {
    for (const r of rows) setStage(db, r.job, stage, r.done, r.total);
  })();
}

/**
 * The single commit point of successful ingestions, for a batch in ONE transaction (one WAL
 * commit instead of one per document): chunk rows, READY, counters, usage and the job's end.
 * Vectors are written before this, so READY implies indexed. Each document is still checked on
 * its own: a superseded one is discarded, the others commit.
 */
export function commitReadyMany(db: Db, items: { job: JobRow; fields: ReadyFields }[], now: number): boolean[] {
  if (!items.length) return [];
  return db.transaction(() => {
    const docs = items.map(({ job }) => loadDoc(db, job.org_id, job.document_id));
    const current = items.map(({ job }, k) => isCurrent(docs[k] ?? null, job));
    const ok = items.filter((_, k) => current[k]);
    items.forEach(({ job }, k) => current[k] || endJob(db, job, "discarded", now));
    for (const { job } of ok) {
      sql(db, "DELETE FROM chunks WHERE org_id = ? AND document_id = ? AND generation = ?").run(job.org_id, job.document_id, job.generation);
    }
    // Every set at once: its search index is written by one grouped statement per set (chunks/bulk.ts).
    insertChunkSets(db, ok.map(({ job, fields: f }) => ({
      set: { orgId: job.org_id, corpusId: f.corpusId, documentId: job.document_id, generation: job.generation, createdAt: now },
      chunks: f.chunks.map((c) => ({ id: c.id, seq: c.seq, pages: c.pages, hash: c.hash, metadata: { kind: c.kind }, body: c.text })),
    })));
    items.forEach(({ job, fields: f }, k) => {
      if (current[k] && wantsPreviews(docs[k]!.content_type, f.nbPages)) {
        enqueuePreviews(db, { orgId: job.org_id, documentId: job.document_id, generation: job.generation }, now);
      }
    });
    for (const { job, fields: f } of ok) {
      sql(db,
        // A lang the document did not have was detected here (SET reads the row as it was).
        `UPDATE documents SET status = 'READY', status_msg = NULL, tokens = ?, nb_words = ?, nb_pages = ?, lang = ?,
           lang_detected = CASE WHEN lang IS NULL THEN 1 ELSE lang_detected END,
           summary = ?, stage = NULL, stage_done = NULL, stage_total = NULL, updated_at = ?
         WHERE org_id = ? AND id = ?`,
      ).run(f.tokens, f.nbWords, f.nbPages, f.lang, f.summary, now, job.org_id, job.document_id);
      if (f.markdown !== undefined) {
        sql(db, "INSERT OR REPLACE INTO converted (org_id, document_id, generation, markdown) VALUES (?, ?, ?, ?)")
          .run(job.org_id, job.document_id, job.generation, f.markdown);
      }
      // An earlier generation's converted form is of no use once this one is READY.
      sql(db, "DELETE FROM converted WHERE document_id = ? AND org_id = ? AND generation < ?").run(job.document_id, job.org_id, job.generation);
      recordUsage(db, job.org_id, {
        metric: "tokens", op: "used", amount: f.tokens, at: now, userId: f.userId, corpusId: f.corpusId, source: "document",
      });
      endJob(db, job, "done", now);
    }
    return current;
  }).immediate();
}

/** The converted markdown kept in the database for a document generation (null: none, or a blob). */
export function loadConverted(db: Db, orgId: string, docId: string, generation: number): string | null {
  return sql<{ markdown: string }, [string, string, number]>(db,
    "SELECT markdown FROM converted WHERE document_id = ? AND org_id = ? AND generation = ?",
  ).get(docId, orgId, generation)?.markdown ?? null;
}

/**
 * Crash recovery: interrupted jobs go back to the queue; orphan PROCESSING docs get a job. At
 * start nothing runs; later (after a job's end could not be recorded, see scheduler.ts) the
 * documents this process is still working on are `busy` and left alone.
 */
export function recoverJobs(db: Db, now: number, busy: Iterable<string> = []): { requeued: number; enqueued: number } {
  return db.transaction(() => {
    const requeued = sql(db, "UPDATE jobs SET state = 'queued' WHERE state = 'running' AND document_id NOT IN (SELECT value FROM json_each(?))")
      .run(JSON.stringify([...busy])).changes;
    const enqueued = sql(db,
      `INSERT INTO jobs (org_id, document_id, generation, state, attempts, created_at)
       SELECT d.org_id, d.id, d.generation, 'queued', 0, ? FROM documents d
       WHERE d.status = 'PROCESSING' AND d.deleted_at IS NULL AND ${liveCorpus("d")} AND NOT EXISTS (
         SELECT 1 FROM jobs j WHERE j.document_id = d.id AND j.generation = d.generation AND j.state IN ('queued', 'running'))
       ORDER BY d.created_at, d.id`,
    ).run(now).changes;
    return { requeued, enqueued };
  }).immediate();
}

/** Oldest queued job per organization (candidates for the fair pick). */
/**
 * For a document's status: null unless its current job waits for a worker; else how many of its
 * organization's queued jobs come before it (workers take organizations in turn, each in commit order).
 */
export function queuePosition(db: Db, orgId: string, documentId: string, generation: number): number | null {
  const r = sql<{ ahead: number }>(db,
    `SELECT (SELECT count(*) FROM jobs a WHERE a.state = 'queued' AND a.org_id = j.org_id AND a.id < j.id) AS ahead
       FROM jobs j WHERE j.org_id = ? AND j.document_id = ? AND j.generation = ? AND j.state = 'queued'`,
  ).get(orgId, documentId, generation);
  return r ? r.ahead : null;
}

export function queuedHeads(db: Db): { org_id: string }[] {
  // A loose index scan (one seek per organization on jobs_state): SELECT DISTINCT read every
  // queued row, on every pick, which made a 500-document backlog quadratic.
  return sql<{ org_id: string }, []>(db,
    `WITH RECURSIVE o(org_id) AS (
       SELECT min(org_id) FROM jobs WHERE state = 'queued'
       UNION ALL
       SELECT (SELECT min(j.org_id) FROM jobs j WHERE j.state = 'queued' AND j.org_id > o.org_id) FROM o WHERE o.org_id IS NOT NULL)
     SELECT org_id FROM o WHERE org_id IS NOT NULL`,
  ).all();
}

export function queuedOf(db: Db, orgId: string, limit: number): JobRow[] {
  return sql<JobRow, [string, number]>(db,
    `SELECT j.id, j.org_id, j.document_id, j.generation, j.state, j.attempts, d.size, d.content_type FROM jobs j
     LEFT JOIN documents d ON d.id = j.document_id WHERE j.state = 'queued' AND j.org_id = ? ORDER BY j.id LIMIT ?`,
  ).all(orgId, limit);
}

/**
 * Atomically takes a queued job; null when another claimer won. The document shows stage
 * `converting` from the same transaction (one write instead of two per document).
 */
export function claim(db: Db, job: JobRow, now: number): JobRow | null {
  return claimMany(db, [job], now)[0] ?? null;
}

/** claim() for several jobs in ONE transaction; returns those taken, in order. */
export function claimMany(db: Db, jobs: JobRow[], now: number): JobRow[] {
  if (!jobs.length) return [];
  return db.transaction(() => {
    // No attempt yet: small jobs are claimed in groups and most wait in a worker's queue, so a
    // crash now says nothing about them. The attempt is spent when a worker begins the job (chargeAttempt).
    const take = sql(db, "UPDATE jobs SET state = 'running', started_at = ? WHERE id = ? AND state = 'queued'");
    const got: JobRow[] = [];
    for (const job of jobs) {
      if (!take.run(now, job.id).changes) continue;
      const j: JobRow = { ...job, state: "running", charged: false };
      setStage(db, j, "converting", 0, 1);
      got.push(j);
    }
    return got;
  }).immediate();
}

/**
 * Gives claimed jobs back to the queue without spending an attempt: the attempt of a job a
 * worker had begun is refunded (a clean shutdown, parsed documents still waiting for their
 * batch, a full disk), and one never begun had none.
 */
export function unclaim(db: Db, jobs: JobRow[]): void {
  if (!jobs.length) return;
  db.transaction(() => {
    const q = sql(db, "UPDATE jobs SET state = 'queued', attempts = max(attempts - ?, 0), started_at = NULL WHERE id = ? AND state = 'running'");
    for (const j of jobs) q.run(j.charged ? 1 : 0, j.id);
  })();
}

/**
 * A worker began the job: one attempt spent, recorded at once so that a crash of the whole
 * server from here on counts against this document and not against the ones queued behind it.
 * A write that fails (a full disk) leaves the attempt unrecorded rather than failing the parse.
 */
export function chargeAttempt(db: Db, job: JobRow): void {
  if (job.charged) return;
  job.charged = true;
  job.attempts++;
  try {
    sql(db, "UPDATE jobs SET attempts = attempts + 1 WHERE id = ? AND state = 'running'").run(job.id);
  } catch {
    // Recovery then finds the job without this attempt: at worst one more try.
  }
}
