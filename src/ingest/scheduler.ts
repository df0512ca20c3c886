/**
 * Consumes the `jobs` table in the server process, at most `workers` jobs at a time.
 *
 * Fairness: the next job comes from the organization with the fewest running jobs, ties broken
 * round-robin by organization id after the last one served. So a thousand queued jobs of org A
 * delay org B's single job by at most the one A job already running on each worker.
 * Two jobs of one document never run together (a new generation waits for the old job to end).
 *
 * The queue is durable: commit inserts a job row; the scheduler polls for queued rows (an
 * indexed query) and can be woken early with wake(). On start, interrupted jobs are requeued
 * (job-store recoverJobs) and jobs that already used their attempts end FAILED.
 */
import type { Logger } from "../context.ts";
import type { Db } from "../store/db.ts";
import { runJob, type IngestDeps } from "./ingest-job.ts";
import { claim, failDocument, queuedHeads, queuedOf, recoverJobs, type JobRow } from "./job-store.ts";
import { renderPreviews } from "./previews.ts";

const POLL_MS = 200;

export interface Scheduler {
  wake(): void;
  /** Jobs running now (tests, diagnostics). */
  running(): number;
  /** Stops claiming, waits for previews to stop; running jobs are abandoned to the next start. */
  close(): Promise<void>;
}

export function startScheduler(d: IngestDeps & { workers: number }): Scheduler {
  const db: Db = d.db;
  const log: Logger = d.log;
  const rec = recoverJobs(db, d.now());
  if (rec.requeued || rec.enqueued) log.info("ingestion recovery", rec);
  failExhausted(d);

  const runningByOrg = new Map<string, number>();
  const runningDocs = new Set<string>();
  const previews = new Set<Promise<unknown>>();
  const jobs = new Set<Promise<unknown>>();
  let active = 0;
  let lastOrg = "";
  let closed = false;

  const pick = (): JobRow | null => {
    const orgs = queuedHeads(db).map((r) => r.org_id);
    orgs.sort((a, b) => {
      const ra = runningByOrg.get(a) ?? 0;
      const rb = runningByOrg.get(b) ?? 0;
      if (ra !== rb) return ra - rb;
      const wa = a > lastOrg ? 0 : 1;
      const wb = b > lastOrg ? 0 : 1;
      return wa - wb || (a < b ? -1 : a > b ? 1 : 0);
    });
    for (const org of orgs) {
      for (const j of queuedOf(db, org, 50)) {
        if (runningDocs.has(j.document_id)) continue;
        if (j.attempts >= d.maxAttempts) {
          failDocument(db, j, `ingestion failed: interrupted ${j.attempts} times`, d.now());
          continue;
        }
        const got = claim(db, j, d.now());
        if (got) {
          lastOrg = org;
          return got;
        }
      }
    }
    return null;
  };

  const tick = () => {
    while (!closed && active < d.workers) {
      let job: JobRow | null;
      try {
        job = pick();
      } catch (e) {
        log.error("ingestion scheduler error", { error: String(e) });
        return;
      }
      if (!job) return;
      start(job);
    }
  };

  const start = (job: JobRow) => {
    active++;
    runningByOrg.set(job.org_id, (runningByOrg.get(job.org_id) ?? 0) + 1);
    runningDocs.add(job.document_id);
    const p: Promise<unknown> = runJob(d, job)
      .then((r) => {
        if (r.outcome === "ready" && r.doc?.contentType.startsWith("application/pdf") && r.doc.nbPages > 0 && !closed) {
          const p = renderPreviews(d, { orgId: job.org_id, documentId: job.document_id, generation: job.generation, blobKey: r.doc.blobKey, nbPages: r.doc.nbPages });
          previews.add(p);
          void p.finally(() => previews.delete(p));
        }
      })
      .catch((e) => log.error("ingestion job crashed", { documentId: job.document_id, error: String(e) }))
      .finally(() => {
        active--;
        runningByOrg.set(job.org_id, (runningByOrg.get(job.org_id) ?? 1) - 1);
        runningDocs.delete(job.document_id);
        jobs.delete(p);
        tick();
      });
    jobs.add(p);
  };

  const timer = setInterval(tick, POLL_MS);
  tick();

  return {
    wake: () => queueMicrotask(tick),
    running: () => active,
    async close() {
      closed = true;
      clearInterval(timer);
      // Killing the workers ends parsing at once; a job past parsing finishes its commit.
      await d.pool.close();
      await Promise.allSettled([...jobs, ...previews]);
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
