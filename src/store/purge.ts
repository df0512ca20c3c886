/**
 * Deletes bookkeeping rows no request can read again (finished jobs, spent upload grants, expired
 * access tokens), in the background and in small transactions. Each domain states which of its
 * rows are spent (a PurgeRule next to the code that reads the table); this walks the tables.
 *
 * A row goes only once it has been spent for `afterMs` (the retention margin): its rule is judged
 * against now − afterMs, inside the DELETE itself, so a row whose state changes meanwhile is
 * judged on what it is at that moment. Each batch is its own transaction and deletes only rows
 * nothing needs: a stop or a crash between batches loses nothing, the next pass starts over.
 *
 * No index is needed to find the rows. Every one of these tables is written in the order its
 * rows are created (rowid follows created_at), and a row created after the cutoff cannot have
 * been spent before it (finished_at and expires_at are never earlier than created_at), so a pass
 * walks the table by rowid from the start and stops at the first row created after the cutoff
 * (a system clock set back only delays the rows created after it, until the cutoff passes them).
 * What it walks is what the margin keeps plus rows kept for their own reason (a job still
 * queued, the grant of a document still waiting for its upload): BATCH_ROWS at a time, with
 * requests let in between.
 */
import type { Logger } from "../context.ts";
import type { Db } from "./db.ts";
import type { Clock } from "./time.ts";
import { nextTurn, startDrainLoop, type DrainLoop } from "./drain-loop.ts";

export interface PurgeRule {
  /** The table; it has a rowid and a created_at column (epoch ms). */
  table: string;
  /** SQL condition on a row of `table`: true when the row was spent no later than $cutoff and nothing reads it again. */
  spent: string;
}

/**
 * Rows looked at per transaction. Over a backlog of 100,000 documents' rows (bun
 * scripts/bench-purge.ts) a batch took 1–9 ms (p50); the longest were the commits that ran
 * SQLite's automatic WAL checkpoint (45–207 ms on a loaded machine, as for any write of that many
 * pages). 128 rows per batch left those where they were and doubled the batches.
 */
export const BATCH_ROWS = 256;

/** One batch of one table, after rowid `after`; returns where to go on from and whether the table is done. */
export function purgeBatch(db: Db, rule: PurgeRule, after: number, cutoff: number, limit = BATCH_ROWS): { after: number; deleted: number; done: boolean } {
  return db.transaction(() => {
    const rows = db
      .query<{ r: number; c: number }, [number, number]>(`SELECT rowid AS r, created_at AS c FROM ${rule.table} WHERE rowid > ? ORDER BY rowid LIMIT ?`)
      .all(after, limit);
    let hi = after;
    let reached = false;
    for (const x of rows) {
      if (x.c > cutoff) {
        reached = true;
        break;
      }
      hi = x.r;
    }
    const deleted =
      hi > after
        ? db.query(`DELETE FROM ${rule.table} WHERE rowid > $after AND rowid <= $hi AND (${rule.spent})`).run({ after, hi, cutoff }).changes
        : 0;
    return { after: hi, deleted, done: reached || rows.length < limit };
  }).immediate();
}

/** Purges every table once, batch by batch; returns the rows deleted per table. */
export async function purgeOnce(db: Db, rules: PurgeRule[], cutoff: number, closed: () => boolean = () => false): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const rule of rules) {
    let after = 0;
    let n = 0;
    while (!closed()) {
      const b = purgeBatch(db, rule, after, cutoff);
      n += b.deleted;
      after = b.after;
      if (b.done) break;
      await nextTurn();
    }
    out[rule.table] = n;
    if (closed()) break;
    await nextTurn();
  }
  return out;
}

export function startPurge(db: Db, rules: PurgeRule[], o: { afterMs: number; everyMs: number; clock: Clock; log: Logger }): DrainLoop {
  return startDrainLoop({
    pass: async (closed) => {
      const t0 = performance.now();
      const deleted = await purgeOnce(db, rules, o.clock.now() - o.afterMs, closed);
      const total = Object.values(deleted).reduce((a, b) => a + b, 0);
      if (total) o.log.info("spent bookkeeping rows purged", { ...deleted, ms: Math.round(performance.now() - t0) });
    },
    pollMs: o.everyMs,
    log: o.log,
    failing: "could not purge spent bookkeeping rows; retrying",
    recovered: "purging spent bookkeeping rows again",
    // The first pass starts on a later turn of the event loop, not inside the server's start.
    deferred: true,
  });
}
