/**
 * Documents and sessions of a deleted corpus, marked deleted in the background in small
 * transactions.
 *
 * The corpus deletion transaction used to mark every document (five indexes and the search-epoch
 * trigger per row) and every session bound to the corpus itself, and to write a usage event for
 * each: about 40 µs a row, 5.5 s at 50,000 documents and 18,000 sessions, during which bun:sqlite,
 * and with it the event loop of the whole server, served no other request of any organization.
 * The transaction now marks the corpus and records one drop here (a constant cost whatever the
 * corpus holds); this loop marks the rows ROWS_PER_TURN per transaction, as of the deletion's
 * time, each batch with its usage events (grouped per user: the reports sum amounts, so they end
 * as before), letting requests in between. Until a drop is done, usage reports count the bytes
 * and sessions of the rows not yet marked as still there; everything else reads them as gone.
 *
 * Nothing reads a document or a session as live on its own deleted_at while its corpus is
 * deleted: a document needs its corpus live (liveCorpus below, used by every reader of
 * documents), and a session needs every corpus it is bound to live (sessions/service.ts). So the
 * answers do not change while drops are pending. Nothing can add a document or a session to a
 * deleted corpus (both check the corpus in the writing turn), so once a turn finds nothing left
 * the drop is done for good. A stop or a crash leaves the rest for the next start.
 */
import type { Logger } from "../context.ts";
import type { Db } from "../store/db.ts";
import { nextTurn, startDrainLoop, type DrainLoop } from "../store/drain-loop.ts";

/** The pending drop a marking step works on: `at` is the corpus' deletion time. */
export interface CorpusDrop {
  id: number;
  orgId: string;
  corpusId: string;
  at: number;
  /** Where the sessions' marking resumes (sessions/service.ts markCorpusSessions). */
  sessionsAfter: number;
}

/**
 * Marks at most `limit` rows of the dropped corpus deleted (with whatever goes with them, in the
 * same transaction) and returns how many it marked: fewer than `limit` means none is left.
 */
export type CorpusMark = (db: Db, drop: CorpusDrop, limit: number) => number;

/**
 * SQL condition: the corpus of the row `alias` (a documents row) is not deleted. Every reader of
 * documents adds it, so a document of a deleted corpus is gone at once, marked or not. One
 * primary-key lookup per document. Worded as "no deleted corpus" rather than "a live corpus" so
 * that it only ever removes what the corpus' deletion removes (rows written without a corpus
 * row, as some tests do, read as before).
 */
export const liveCorpus = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM corpora lc WHERE lc.id = ${alias}.corpus_id AND lc.org_id = ${alias}.org_id AND lc.deleted_at IS NOT NULL)`;

/**
 * Rows marked per transaction: a document costs its indexes, the search-epoch trigger, its chunk
 * and vector drops and its share of the usage events, a session less. At 50,000 documents and
 * 18,000 sessions a turn took 19–41 ms (median), 57–174 ms (95th percentile) on a shared 2-core
 * machine at a load average of 5–9 (scripts/bench-corpus-delete.ts); 500 took 84 ms and up to 336.
 */
export const ROWS_PER_TURN = 250;
const POLL_MS = 2000;

/** Records the drop; inside the corpus deletion transaction. */
export function recordCorpusDrop(db: Db, d: Omit<CorpusDrop, "id" | "sessionsAfter">): void {
  db.query("INSERT INTO corpus_drops (org_id, corpus_id, created_at) VALUES (?, ?, ?)").run(d.orgId, d.corpusId, d.at);
}

/** True while some drop of the organization is pending: readers that can skip the corpus check otherwise ask this. */
export function dropsPending(db: Db, orgId: string): boolean {
  return db.query("SELECT 1 FROM corpus_drops WHERE org_id = ? LIMIT 1").get(orgId) != null;
}

/** One transaction's worth of the oldest drop; returns how many rows it marked and whether drops remain. */
export function dropCorpusTurn(db: Db, marks: readonly CorpusMark[], limit = ROWS_PER_TURN): { rows: number; more: boolean } {
  return db.transaction(() => {
    const r = db
      .query<{ id: number; org_id: string; corpus_id: string; created_at: number; sessions_after: number }, []>(
        "SELECT id, org_id, corpus_id, created_at, sessions_after FROM corpus_drops ORDER BY id LIMIT 1",
      )
      .get();
    if (!r) return { rows: 0, more: false };
    const drop: CorpusDrop = { id: r.id, orgId: r.org_id, corpusId: r.corpus_id, at: r.created_at, sessionsAfter: r.sessions_after };
    let rows = 0;
    for (const mark of marks) {
      rows += mark(db, drop, limit - rows);
      if (rows >= limit) return { rows, more: true };
    }
    db.query("DELETE FROM corpus_drops WHERE id = ?").run(r.id);
    return { rows, more: db.query("SELECT 1 FROM corpus_drops LIMIT 1").get() != null };
  }).immediate();
}

/** `marked` runs after a pass that marked something: the chunk and vector drops it recorded can start. */
export function startCorpusDrops(db: Db, marks: readonly CorpusMark[], log: Logger, marked: () => void): DrainLoop {
  return startDrainLoop({
    pass: async (closed) => {
      let any = false;
      try {
        while (!closed()) {
          const t = dropCorpusTurn(db, marks);
          any ||= t.rows > 0;
          if (!t.more) break;
          // Requests that arrived during the transaction run before the next one.
          await nextTurn();
        }
      } finally {
        if (any) marked();
      }
    },
    pollMs: POLL_MS,
    log,
    failing: "could not mark the documents and sessions of deleted corpora; retrying",
    recovered: "corpus drops carried out again",
    // Not inside the caller's turn: the corpus deletion answers first.
    deferred: true,
  });
}
