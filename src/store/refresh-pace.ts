/**
 * When lance.ts runs a background optimize() (FTS refresh, compaction, index merges, version
 * cleanup) after writes. It runs in the table's write queue, so every write waits while it runs.
 *
 * Small tables: once a burst of writes has settled (FTS_SETTLE_MS) or every OPTIMIZE_EVERY
 * writes; a refresh there takes 65–360 ms.
 *
 * Tables above FTS_SYNC_MAX_ROWS: a refresh costs in proportion to the table, not to the rows it
 * folds in. LanceDB merges new rows into the IVF_FLAT index by rewriting the whole index (full
 * vectors), and compaction, every other time, rewrites the table's one big fragment with the new
 * small ones (it stays under LanceDB's 1,000,000-row fragment target): 12 s at 102,000 rows for
 * 64 new rows, 16–25 s at 102,000 rows on a loaded machine in the scale audit's ingest phase,
 * where one started in a 500 ms pause of a burst and held every document of the burst from READY
 * for its whole length. No search waits for a refresh on such a table (it scans rows not yet
 * folded in), so it waits for writes to pause for LARGE_SETTLE_MS, or, under steady writes, until
 * rows have waited LARGE_EVERY_MS; and it is paced by its own measured cost: the next one starts
 * no sooner than OPTIMIZE_PACE times its last duration after it ended, so refreshes hold the
 * queue for at most a 1/(OPTIMIZE_PACE + 1) share of the time however big the table grows.
 */

export const OPTIMIZE_EVERY = 25;
/**
 * Rows added after the FTS index was built are searched by a flat scan whose BM25 statistics are
 * not those of the index, so their scores cannot be compared with indexed rows' scores (measured:
 * a term frequent in new rows and rare in indexed ones ranked every new row below the old ones).
 * Up to this many rows, a text search first brings the index up to date when writes left it
 * behind, so no search mixes the two. This used to run inside every write, before the documents
 * were reported READY: a refresh costs 65–360 ms of CPU by table size, and a burst of small files
 * paid it once per batch on the cores its parsing needed; now a burst pays it once, after it
 * settles, or at the first text search. Above this size a search does not wait for it.
 */
export const FTS_SYNC_MAX_ROWS = 20_000;
export const FTS_SETTLE_MS = 500;
export const LARGE_SETTLE_MS = 5_000;
export const LARGE_EVERY_MS = 60_000;
export const OPTIMIZE_PACE = 4;

export interface RefreshState {
  /** performance.now() of the decision. */
  now: number;
  /** Rows in the table (approximately). */
  rows: number;
  /** Writes since the last refresh, this one included (at least 1). */
  writes: number;
  /** When the first of those writes was made. */
  pendingSince: number;
  /** Duration of the last background or explicit refresh (0: none yet in this process). */
  lastMs: number;
  /** When it ended (the table's opening if none yet). */
  lastEnd: number;
}

/** Milliseconds until the refresh should run if no other write comes first; 0: now. */
export function refreshDelay(s: RefreshState): number {
  if (s.rows <= FTS_SYNC_MAX_ROWS) return s.writes >= OPTIMIZE_EVERY ? 0 : FTS_SETTLE_MS;
  const paced = s.lastEnd + OPTIMIZE_PACE * s.lastMs;
  if (s.now - s.pendingSince >= LARGE_EVERY_MS && s.now >= paced) return 0;
  return Math.max(LARGE_SETTLE_MS, paced - s.now);
}
