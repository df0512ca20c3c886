/**
 * Which queued jobs the scheduler claims next, in order (scheduler.ts claims them in one
 * transaction): the same choices as picking one job at a time — the organization with the
 * fewest jobs in flight first, round-robin among equals after the last one served, a large
 * document only for a free worker and nothing claimed past it — simulated on local counts.
 */
import type { Db } from "../store/db.ts";
import { isSmall } from "./ingest-job.ts";
import { queuedHeads, queuedOf, type JobRow } from "./job-store.ts";
import { PIPELINE_DEPTH } from "./pool.ts";

export interface ClaimState {
  workers: number;
  maxAttempts: number;
  /** Jobs parsing now, and how many of them are large documents. */
  parsing: number;
  parsingLarge: number;
  /** The organization served last (round-robin starts after it). */
  lastOrg: string;
  /** Jobs in flight per organization (parsing, waiting for their batch or finishing). */
  runningByOrg: Map<string, number>;
  /** Documents with a job in flight: a new generation waits for the old job to end. */
  runningDocs: Set<string>;
  /** A job that used all its attempts: ends its document FAILED. */
  exhausted(job: JobRow): void;
}

export function planClaims(db: Db, s: ClaimState): JobRow[] {
  const cap = s.workers * PIPELINE_DEPTH;
  const out: JobRow[] = [];
  const counts = new Map(s.runningByOrg);
  const planned = new Set<string>();
  const rowsOf = new Map<string, { rows: JobRow[]; at: number; all: boolean }>();
  let busy = s.parsing;
  let large = s.parsingLarge;
  let last = s.lastOrg;
  const orgs = queuedHeads(db).map((r) => r.org_id);
  /** The next usable row of an organization; null when it has none, "blocked" for a large one a busy pool cannot take. */
  const nextOf = (org: string, smallOnly: boolean): JobRow | null | "blocked" => {
    let c = rowsOf.get(org);
    const want = cap - busy + 4;
    if (!c) rowsOf.set(org, (c = { rows: queuedOf(db, org, want), at: 0, all: false }));
    for (;;) {
      if (c.at === c.rows.length) {
        // Usually the first rows are claimable; more are read only when they are all blocked.
        if (c.all || c.rows.length < want) return null;
        c.rows = queuedOf(db, org, 200).filter((j) => !c!.rows.some((r) => r.id === j.id));
        c.at = 0;
        c.all = true;
        continue;
      }
      const j = c.rows[c.at]!;
      if (s.runningDocs.has(j.document_id) || planned.has(j.document_id)) {
        c.at++;
        continue;
      }
      if (j.attempts >= s.maxAttempts) {
        c.at++;
        s.exhausted(j);
        continue;
      }
      // A large document waits for a free worker rather than queue behind another one; nothing
      // is claimed past it meanwhile, so it cannot be starved by a stream of small ones.
      if (smallOnly && !isSmall(j.size, j.content_type)) return "blocked";
      c.at++;
      return j;
    }
  };
  while (busy < cap && (busy < s.workers || !large)) {
    orgs.sort((a, b) => {
      const ra = counts.get(a) ?? 0;
      const rb = counts.get(b) ?? 0;
      if (ra !== rb) return ra - rb;
      const wa = a > last ? 0 : 1;
      const wb = b > last ? 0 : 1;
      return wa - wb || (a < b ? -1 : a > b ? 1 : 0);
    });
    let got: JobRow | null = null;
    for (const org of orgs) {
      const j = nextOf(org, busy >= s.workers);
      if (j === "blocked") return out;
      if (j) {
        got = j;
        break;
      }
    }
    if (!got) break;
    out.push(got);
    planned.add(got.document_id);
    counts.set(got.org_id, (counts.get(got.org_id) ?? 0) + 1);
    last = got.org_id;
    busy++;
    if (!isSmall(got.size, got.content_type)) large++;
  }
  return out;
}
