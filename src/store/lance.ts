/**
 * LanceDB driver for the VectorIndex port (store/vector.ts), under <data>/lance.
 *
 * One table per embedding model (`chunks__<slug of the embedder id>`), because vectors of two
 * models are not comparable and may not even have the same width. Writes to a table go through
 * one promise queue: Lance commits are atomic, but concurrent writers to one table retry on
 * conflicts, and a delete-then-add must not interleave with another document's.
 *
 * Full text: an FTS (BM25) index on `text` is created with the first rows. Lance searches rows
 * added after the index was built with a flat scan, so a chunk is findable by text right after
 * add(); optimize() folds new rows into the index, compacts small fragments and drops old
 * versions. It runs in the background after writes, as refresh-pace.ts decides (once a burst
 * has settled; on big tables less often, paced by its own cost), and, on a table of up to
 * FTS_SYNC_MAX_ROWS rows, before a text search that would otherwise see rows the index has not
 * folded in (see FTS_SYNC_MAX_ROWS for why).
 *
 * Text ranking: the index's BM25 scores use statistics of the whole table, every organization's
 * rows, so searchText only takes its best candidates and ranks them again on statistics kept per
 * organization (scoped-bm25.ts): taken from the file a clean close saved, or else counted from a
 * version of the table pinned once the vector copy is loaded, beside the write queue, then
 * updated by every write, a delete reading the terms of the rows it removes first.
 *
 * Every search filters by organization and corpus. The filter runs BEFORE the search (prefilter:
 * a small tenant in a big table still gets its topK), so bitmap indexes on orgId and corpusId
 * keep it from scanning both string columns of every row on each query (scalarIndexes()).
 *
 * Vector search: an in-memory copy of the table's vectors (vector-scan.ts, int8 with a
 * re-ranking on residuals) answers once it is loaded. It is filled from the table in the write
 * queue right after opening, so no write interleaves with the load, and every write applies to
 * it once LanceDB has committed it; a failed write drops the copy and loads it again. Until it
 * is loaded, or where WebAssembly SIMD is missing, LanceDB answers: exact below ANN_MIN_ROWS,
 * else through the approximate index ensureVectorIndex() builds (ANN_KIND, probed with
 * ANN_SEARCH; rows added after the build are scanned exactly until optimize() folds them in).
 */
import * as lancedb from "@lancedb/lancedb";
import type { Logger } from "../context.ts";
import type { VectorHit, VectorIndex, VectorRecord } from "./vector.ts";
import { ANN_KIND, ANN_MIN_ROWS, ANN_SEARCH, annIndex, annPartitions, type AnnKind, type AnnSearch } from "./lance-ann.ts";
import { byOrgSlices, inList, slices, uuid } from "./lance-filters.ts";
import { chunkSchema, scanColumns, toArrowTable } from "./lance-rows.ts";
import { createVectorScan, SCAN_MAX_BYTES, type VectorScan } from "./vector-scan.ts";
import { FTS_SYNC_MAX_ROWS, refreshDelay } from "./refresh-pace.ts";
import { nextTurn } from "./drain-loop.ts";
import { rankScoped, TextStats, type SavedTextStats } from "./scoped-bm25.ts";
import { TERMS_ID } from "./fts-terms.ts";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Text search asks LanceDB's full-text index for this many times `limit` of the caller's best
 * chunks (at least TEXT_CANDIDATES_MIN), then ranks them again on the organization's own
 * statistics (scoped-bm25.ts). Which chunks become candidates is still the index's choice, on
 * the table's shared statistics (README, "Text ranking statistics are the organization's own").
 * Twice rather than four times: the residual measured by probe-ranking-residual.ts falls by
 * about four with twice the candidates, but each candidate's text is read and split per query
 * (128 candidates cost about 3 ms more than 64 at 100,000 chunks).
 */
export const TEXT_CANDIDATE_FACTOR = 2;
export const TEXT_CANDIDATES_MIN = 64;

/**
 * Runs `each(0..n-1)`, waiting for a later turn of the event loop whenever a slice has taken
 * STATS_SLICE_MS. Splitting text into terms is JavaScript on the server's thread: the 4,000 rows of
 * a 38 MB document took about a second, which in one go held every request that long when they
 * were written, replaced or counted at open (test/ingest/lance-text-stats-yields.test.ts).
 */
const STATS_SLICE_MS = 10;
async function inTurns(n: number, each: (i: number) => void): Promise<void> {
  let since = performance.now();
  for (let i = 0; i < n; i++) {
    each(i);
    if (performance.now() - since >= STATS_SLICE_MS) {
      await nextTurn();
      since = performance.now();
    }
  }
}

/**
 * A count of the text statistics that failed is queued again by a text search, but not before
 * this long after the failure, doubled with each failure in a row up to STATS_RETRY_MAX_MS. It
 * used to be queued again by the next search: a count that keeps failing (an unreadable data
 * file, which other organizations' searches may never touch) then read the table in its write
 * queue once per search, holding its writes each time, and logged an error per search
 * (test/ingest/lance-text-stats-count-failure-backs-off.test.ts).
 */
export const STATS_RETRY_MS = 5_000;
export const STATS_RETRY_MAX_MS = 10 * 60_000;
const statsRetryDelay = (failures: number) => Math.min(STATS_RETRY_MAX_MS, STATS_RETRY_MS * 2 ** Math.min(failures - 1, 20));

type TextBatch = { numRows: number; getChild(name: string): { get(i: number): unknown } | null };
const TEXT_COLUMNS = ["orgId", "text"];

/**
 * Counts the rows of `batches` (TEXT_COLUMNS) into `into`; false when `stopped()` cut it short.
 * Each batch's organization ids and texts are copied out as strings before anything else runs: the
 * counting yields to the event loop (inTurns), and reading a LanceDB batch after such a turn
 * crashed the process (Bun 1.3.5 segfaults a second after restarts in the crash test, 2 runs in 4;
 * none with the batch read in one go): a batch's buffers are not trusted past a turn, as
 * loadVectorCopy says of a reader that has moved on.
 */
async function countRows(batches: AsyncIterable<TextBatch>, into: TextStats, stopped = () => false): Promise<boolean> {
  const reader = batches[Symbol.asyncIterator]();
  for (let next = await reader.next(); !next.done; next = await reader.next()) {
    if (stopped()) {
      // Read to its end, unread: LanceDB's scan has no close, and one left part-read holds a
      // descriptor on each of the files it reads ahead (some 16) until it is garbage collected
      // (test/ingest/lance-text-stats-recount-stopped-holds-no-files.test.ts). Its error no longer matters.
      try {
        while (!(await reader.next()).done);
      } catch {}
      return false;
    }
    const batch = next.value;
    const orgs = batch.getChild("orgId")!, texts = batch.getChild("text")!;
    const o: string[] = new Array(batch.numRows), t: string[] = new Array(batch.numRows);
    for (let i = 0; i < batch.numRows; i++) {
      o[i] = String(orgs.get(i));
      t[i] = String(texts.get(i) ?? "");
    }
    await inTurns(o.length, (i) => into.add(o[i]!, t[i]!));
  }
  return true;
}

/**
 * Where a clean close leaves the table's text statistics, with the table version they describe
 * and the terms they were counted in (fts-terms.ts, TERMS_ID). The next open takes them, and
 * removes the file, if the table is still at that version and the terms are this build's; else
 * (a crash, a write by anything else, another build) they are counted from the table again.
 */
export const textStatsFile = (dir: string, tableName: string) => join(dir, `${tableName}.text-stats.json`);
interface TextStatsSnapshot { table: string; version: number; terms: string; stats: SavedTextStats }

export { ANN_KIND, ANN_MIN_ROWS, ANN_SEARCH, annPartitions, type AnnKind, type AnnSearch };

/** Options of one vector search beyond the port's; the benchmark uses them to measure recall. */
export interface VectorSearchOptions {
  /** LanceDB's flat scan, even when the in-memory copy or an approximate index exists: the ground truth for recall. */
  exact?: boolean;
  /** LanceDB's approximate index (when built) with these settings instead of the in-memory copy (comparisons, sweeps). */
  ann?: Partial<AnnSearch>;
}

/** Options of one text search beyond the port's; probe-ranking-residual.ts compares candidate pools with them. */
export interface TextSearchOptions {
  /** Candidates asked of the full-text index, instead of max(limit × TEXT_CANDIDATE_FACTOR, TEXT_CANDIDATES_MIN). */
  candidates?: number;
}

export function tableNameFor(embedderId: string): string {
  return "chunks__" + embedderId.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");
}

export interface LanceIndex extends VectorIndex {
  readonly tableName: string;
  readonly dims: number;
  /** Deletes the document's rows (every generation) and adds these, as one queued write. */
  replaceDocument(orgId: string, documentId: string, records: VectorRecord[]): Promise<void>;
  /** Every generation, or only the given one (a superseded job cleaning up after itself). */
  deleteDocument(orgId: string, documentId: string, generation?: number): Promise<void>;
  /** Every generation of these documents: one Lance commit per IN_LIST_MAX documents that have rows. */
  deleteDocuments(orgId: string, documentIds: string[]): Promise<void>;
  /** Rows in the table (all organizations). */
  count(): Promise<number>;
  /** The stored (indexed) text of these chunks, for re-embedding with another model; absent ids are left out. */
  texts(chunkIds: string[]): Promise<Map<string, string>>;
  /** Compacts, refreshes the FTS index and drops old versions now. */
  optimize(): Promise<void>;
  /** Builds an approximate vector index once the table is big enough; returns whether one exists. */
  ensureVectorIndex(minRows?: number, kind?: AnnKind): Promise<boolean>;
  /** Resolves once the in-memory copy of the vectors is loaded; false where it is unavailable. */
  vectorCopyReady(): Promise<boolean>;
  /** Resolves once the organizations' text statistics are counted (text search ranks on them); false if the count failed. */
  textStatsReady(): Promise<boolean>;
  searchVector(orgId: string, corpusIds: string[], vector: Float32Array, limit: number, opts?: VectorSearchOptions): Promise<VectorHit[]>;
  searchText(orgId: string, corpusIds: string[], query: string, limit: number, opts?: TextSearchOptions): Promise<VectorHit[]>;
}

/** The columns the in-memory copy is loaded from. */
export const COPY_COLUMNS = ["chunkId", "orgId", "corpusId", "documentId", "generation", "vector"];

/**
 * The in-memory copy of a table's vectors, read from it batch by batch; undefined where it is
 * unavailable, past its memory cap, or once `stopped()` says so. The table must not change
 * meanwhile (the driver loads in its write queue).
 */
export async function loadVectorCopy(table: lancedb.Table, dims: number, stopped: () => boolean): Promise<VectorScan | undefined> {
  // Sized for the table up front: grown batch by batch it would keep up to a third of its arrays spare.
  const copy = createVectorScan(dims, SCAN_MAX_BYTES, await table.countRows());
  if (!copy || stopped()) return undefined;
  // Each batch is read to the end before the next is asked for. Asking first, so that LanceDB
  // decodes it meanwhile, was tried and left out: in the same Bun and LanceDB, Arrow tables
  // kept across later batches (toArray()) were seen to read empty strings, so a batch's buffers
  // are not trusted once the reader has moved on.
  for await (const batch of table.query().select(COPY_COLUMNS)) {
    if (stopped() || !copy.load(scanColumns(batch, dims))) return undefined;
  }
  return copy;
}

/** Chunk tables present under dir, with their row counts. */
export async function listLanceTables(dir: string): Promise<{ name: string; rows: number }[]> {
  const conn = await lancedb.connect(dir);
  try {
    const out: { name: string; rows: number }[] = [];
    for (const name of await conn.tableNames()) {
      if (!name.startsWith("chunks__")) continue;
      const t = await conn.openTable(name);
      out.push({ name, rows: await t.countRows() });
      t.close();
    }
    return out;
  } finally {
    conn.close();
  }
}

/** Drops a table (a retired index); absent is fine. */
export async function dropLanceTable(dir: string, name: string): Promise<void> {
  const conn = await lancedb.connect(dir);
  try {
    if ((await conn.tableNames()).includes(name)) await conn.dropTable(name);
    await rm(textStatsFile(dir, name), { force: true });
  } finally {
    conn.close();
  }
}

/**
 * Opens (or creates) the table of an embedder. An existing table keeps the width it was built
 * with, whatever `dims` says; `tableName` overrides the name (a table whose model id is unknown);
 * `log` hears of background optimizes that fail.
 */
export async function openLanceIndex(
  dir: string, embedderId: string, requestedDims: number, opts: { tableName?: string; log?: Logger } = {},
): Promise<LanceIndex> {
  const { tableName = tableNameFor(embedderId), log } = opts;
  const conn = await lancedb.connect(dir);
  const opened = (await conn.tableNames()).includes(tableName)
    ? await conn.openTable(tableName)
    : await conn.createEmptyTable(tableName, chunkSchema(requestedDims), { existOk: true });
  /** The newest handle on the table (see reopen below); queued work always goes through it. */
  type Handle = { table: lancedb.Table; conn: lancedb.Connection; readers: number; retired: boolean };
  let current: Handle = { table: opened, conn, readers: 0, retired: false };
  const vectorType = (await current.table.schema()).fields.find((f) => f.name === "vector")?.type;
  // Duck-typed: LanceDB may carry its own copy of apache-arrow, so instanceof is unreliable.
  const listSize = (vectorType as { listSize?: unknown } | undefined)?.listSize;
  const dims = typeof listSize === "number" ? listSize : requestedDims;
  const indexed = async (column: string) => (await current.table.listIndices()).some((i) => i.columns.includes(column));
  let hasFts = await indexed("text");
  const unindexedText = async () => {
    const name = (await current.table.listIndices()).find((i) => i.columns.includes("text"))?.name;
    return (name && (await current.table.indexStats(name))?.numUnindexedRows) || 0;
  };
  let hasScalar = await indexed("orgId");
  // Partitions of the vector index, for nprobes; a reopened table estimates them from its rows.
  let annParts = 0;
  const vectorIndex = async () => (await current.table.listIndices()).find((i) => i.columns.includes("vector"));
  let hasAnn = false;
  const loadAnn = async () => {
    const vi = await vectorIndex();
    if (vi && !annParts) annParts = annPartitions((vi as { numIndexedRows?: number }).numIndexedRows ?? (await current.table.countRows()));
    return (hasAnn = !!vi);
  };
  await loadAnn();
  let annBuild: Promise<boolean> | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let writes = 0;
  // For refresh-pace.ts: when the writes not yet refreshed began, and the last refresh's cost.
  let pendingSince = 0;
  let lastRefreshMs = 0;
  let lastRefreshEnd = performance.now();
  /** Rows in the table, estimated between counts (see optimizeNow). */
  let approxRows: number | undefined;
  let optimizeFailing = false;
  let closed = false;

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };

  // The in-memory copy of the vectors (see the header); undefined while loading or unavailable.
  let scan: VectorScan | undefined;
  const loadScan = async (): Promise<boolean> => {
    scan = undefined;
    const copy = await loadVectorCopy(current.table, dims, () => closed);
    if (!copy) return false;
    scan = copy;
    return true;
  };
  /**
   * Per-organization text statistics (scoped-bm25.ts), taken from the file a clean close saved,
   * or counted from the table, and kept in step by every write after that. Until then (README:
   * 2.65–4.2 s after opening at 100,000 rows when counted, load 3–5), text search ranks its
   * candidates on the candidates' own statistics: approximate, but never the shared index's.
   *
   * The count reads one version of the table, pinned in the write queue once the vector copy is
   * loaded, and runs outside the queue, so writes (documents finishing) do not wait for it: each
   * write meanwhile records the rows it adds and the rows it removes (read before its delete, as
   * always) in `meanwhile`, and the count, done, takes them into its result in a turn of the
   * queue, where no write is half-recorded. A write that fails meanwhile (its partial work
   * unknown) makes the count start over after it. The pinned version's files must outlive the
   * count, so optimize() cleans no versions while a count holds one (`pins`): not merely while
   * `meanwhile` is kept, which a failed write clears at once while the count still reads until
   * its next batch and then to the end of its scan
   * (test/ingest/lance-text-stats-recount-pin-outlives-failed-write.test.ts).
   */
  let stats: TextStats | undefined;
  let meanwhile: { added: TextStats; removed: TextStats } | undefined;
  /** Counts holding a pinned version, from beginCount until the count has closed it. */
  let pins = 0;
  /** A count is queued or running; the latest one queued. */
  let statsCounting = false;
  let statsRun = 0;
  /** Counts that failed in a row, and when a text search may queue the next (statsRetryDelay). */
  let statsFailures = 0;
  let statsRetryAt = 0;
  type Pinned = { table: lancedb.Table; conn: lancedb.Connection; meanwhile: NonNullable<typeof meanwhile> };
  /** In the queue: the table pinned at its current version for a count. */
  const beginCount = async (): Promise<Pinned | undefined> => {
    if (closed) return undefined;
    stats = undefined;
    const version = await current.table.version();
    const pinnedConn = await lancedb.connect(dir);
    let table: lancedb.Table | undefined, pinned: Pinned | undefined;
    try {
      table = await pinnedConn.openTable(tableName);
      await table.checkout(version); // throws if that version's manifest is gone
      meanwhile = { added: new TextStats(), removed: new TextStats() };
      pins++;
      return (pinned = { table, conn: pinnedConn, meanwhile });
    } finally {
      // Unless handed to the count, the handles are closed here whatever failed: a table left
      // open keeps its native dataset until the garbage collector drops the object.
      if (!pinned) {
        table?.close();
        pinnedConn.close();
      }
    }
  };
  const loadStats = async (): Promise<TextStats | undefined> => {
    // A new table has nothing to count: its statistics start with its first write, in order.
    const saved = await serial(async () => {
      stats = undefined;
      return (stats = (await takeSnapshot()) ?? ((await current.table.countRows()) === 0 ? new TextStats() : undefined));
    });
    if (saved) return saved;
    // The vector copy's load, queued next, holds the writes: counting beside it, on the same
    // thread, made it (and the writes queued behind it) take about 3 times as long.
    await scanLoad;
    for (;;) {
      const begun = await serial(beginCount);
      if (!begun) return undefined;
      const d = begun.meanwhile;
      const fresh = new TextStats();
      let counted: boolean;
      try {
        counted = await countRows(begun.table.query().select(TEXT_COLUMNS), fresh, () => closed || meanwhile !== d);
      } catch (e) {
        if (meanwhile === d) meanwhile = undefined;
        throw e;
      } finally {
        pins--; // first: a close that threw must not keep version cleanup off for good
        begun.table.close();
        begun.conn.close();
      }
      const done = counted && await serial(async () => {
        if (meanwhile !== d || closed) return undefined;
        meanwhile = undefined;
        fresh.merge(d.added);
        fresh.subtract(d.removed);
        statsCounting = false; // in this turn, so a write failing right after it queues a count
        return (stats = fresh);
      });
      if (meanwhile === d) meanwhile = undefined;
      if (done || closed) return done || undefined;
    }
  };
  /** The statistics a clean close saved, if they still describe the table; the file is used once. */
  const takeSnapshot = async (): Promise<TextStats | undefined> => {
    const file = textStatsFile(dir, tableName);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      return undefined;
    }
    await rm(file, { force: true });
    try {
      const snap = JSON.parse(text) as TextStatsSnapshot;
      if (snap.table !== tableName || snap.terms !== TERMS_ID || snap.version !== (await current.table.version())) return undefined;
      return TextStats.fromJSON(snap.stats);
    } catch (e) {
      log?.info("the saved text statistics could not be read; counting them from the table", { table: tableName, error: String(e) });
      return undefined;
    }
  };
  /** After the last write: the next open of an unchanged table takes these instead of counting. */
  const saveSnapshot = async () => {
    if (!stats) return;
    const file = textStatsFile(dir, tableName);
    try {
      const snap: TextStatsSnapshot = { table: tableName, version: await current.table.version(), terms: TERMS_ID, stats: stats.toJSON() };
      await writeFile(file + ".tmp", JSON.stringify(snap));
      await rename(file + ".tmp", file);
    } catch (e) {
      log?.info("could not save the text statistics; the next start counts them from the table", { table: tableName, error: String(e) });
      await rm(file + ".tmp", { force: true }).catch(() => {});
    }
  };
  const queueStatsLoad = () => {
    const run = ++statsRun;
    statsCounting = true;
    return (async () => {
      try {
        const s = await loadStats();
        if (s && statsFailures) log?.info("the text statistics of the vector table are counted again", { table: tableName });
        if (s) statsFailures = statsRetryAt = 0;
        return s;
      } catch (e) {
        const delay = statsRetryDelay(++statsFailures);
        statsRetryAt = performance.now() + delay;
        log?.error("could not count the text statistics of the vector table; text search ranks on its candidates' statistics until they are counted (a text search tries again after retryAfterMs)", { table: tableName, error: String(e), failures: statsFailures, retryAfterMs: delay });
        return undefined;
      } finally {
        if (run === statsRun) statsCounting = false;
      }
    })();
  };
  /** No count is under way, none succeeded since the last write failed or the last count did, and the retry delay is over. */
  const statsDue = () => !stats && !statsCounting && !closed && performance.now() >= statsRetryAt;
  let statsLoad: Promise<TextStats | undefined> = queueStatsLoad();
  let scanLoad = serial(loadScan).catch(() => false);
  /** Runs a committed write on the copy; a failure leaves it unknown, so it is dropped and loaded again. */
  const mirrored = async <T>(write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (e) {
      if (scan) {
        // Writes queued meanwhile see no copy; the load, queued after them, reads their result.
        scan = undefined;
        scanLoad = serial(loadScan).catch(() => false);
      }
      // The same for the text statistics (a failed write may have committed part of its work):
      // a count under way starts over after this write, one still queued runs after it, and one
      // that failed waits for its delay.
      stats = undefined;
      meanwhile = undefined;
      if (statsDue()) statsLoad = queueStatsLoad();
      throw e;
    }
  };
  /** Statistics of the candidates alone, while the organization's are being counted. */
  const candidateStats = (candidates: { text: string }[]) => {
    const own = new TextStats();
    for (const c of candidates) own.add("", c.text);
    return own.of("");
  };
  /** Rows added: counted in the statistics once LanceDB has committed them. */
  const countAdded = async (records: VectorRecord[]) => {
    const s = stats ?? meanwhile?.added;
    if (s) await inTurns(records.length, (i) => s.add(records[i]!.orgId, records[i]!.text));
  };
  /**
   * Deletes the rows `where` matches, after counting their terms, which the statistics subtract
   * once the delete is committed. In the write queue, so the rows read are the rows deleted. The
   * terms are counted batch by batch, not the text kept: a corpus delete removes up to 500
   * documents' rows at once, and their text held until the commit was that much of the server's memory.
   */
  const deleteWhere = async (where: string) => {
    const s = stats, d = meanwhile;
    const gone = (s || d) && new TextStats();
    if (gone) await countRows(current.table.query().where(where).select(TEXT_COLUMNS), gone);
    await current.table.delete(where);
    if (!gone) return;
    if (s && stats === s) s.subtract(gone);
    else if (d && meanwhile === d) d.removed.merge(gone);
  };
  const mirrorUpsert = (records: VectorRecord[]) => {
    if (scan && !scan.upsert(records)) scan = undefined; // grew past its memory cap: LanceDB answers alone
  };

  /**
   * LanceDB 0.39 keeps, in the handle that ran optimize(), two descriptors on the replaced FTS
   * index files and a copy of that index in memory, until the handle is closed (measured: +2
   * descriptors per optimize, +57 MB per 100 optimizes, files already deleted by version cleanup
   * held open; a server ingesting steadily would run out of descriptors after some 10,000
   * documents). So after each optimize the table is opened afresh on a new connection. Writes
   * and optimize() run in the queue and always use the newest handle; reads outside it
   * (`reading`) count themselves on the handle they started with, which is closed when the
   * last of them ends.
   */
  const retire = (h: Handle) => {
    h.retired = true;
    if (h.readers) return;
    h.table.close();
    h.conn.close();
  };
  const reading = async <T>(fn: (t: lancedb.Table) => Promise<T>): Promise<T> => {
    const h = current;
    h.readers++;
    try {
      return await fn(h.table);
    } finally {
      if (--h.readers === 0 && h.retired) retire(h);
    }
  };
  const reopen = async () => {
    const freshConn = await lancedb.connect(dir);
    const fresh = await freshConn.openTable(tableName);
    const old = current;
    current = { table: fresh, conn: freshConn, readers: 0, retired: false };
    retire(old);
  };

  /** Rows were added that the FTS index has not folded in yet. */
  let textLag = hasFts && (await unindexedText()) > 0;
  const optimizeNow = async () => {
    if (annBuild) return; // the next write's turn will do it
    writes = 0;
    const lagged = textLag;
    textLag = false;
    const started = performance.now();
    try {
      // While a count holds a pinned version, no version is cleaned up (a timestamp of 0 keeps
      // every version younger than 1970): its files must stay readable.
      await current.table.optimize({ cleanupOlderThan: new Date(pins ? 0 : Date.now() - 60_000) });
    } catch (e) {
      textLag ||= lagged;
      // Said once per run of failures: background optimizes drop their rejection, and a table
      // that is never optimized keeps every version and index file (a full disk, say) unnoticed.
      if (!optimizeFailing) log?.error("could not optimize the vector table; its old versions and index files stay until it succeeds, retried after the next writes", { table: tableName, error: String(e) });
      optimizeFailing = true;
      throw e;
    } finally {
      lastRefreshEnd = performance.now();
      lastRefreshMs = lastRefreshEnd - started;
    }
    if (optimizeFailing) log?.info("the vector table is optimized again", { table: tableName });
    optimizeFailing = false;
    // The estimate only ever adds (deletes do not say how many rows they took), so it is counted
    // afresh after each refresh: else rows that merely passed through a small table would push it
    // past FTS_SYNC_MAX_ROWS and onto the large tables' pace for good.
    approxRows = undefined;
    if (!closed) await reopen();
  };
  /** One refresh for every search waiting on it; a failed refresh leaves the search to the flat scan. */
  let refreshing: Promise<void> | undefined;
  const refreshText = () =>
    (refreshing ??= serial(async () => {
      if (textLag && !closed) await optimizeNow();
    }).catch(() => {}).finally(() => (refreshing = undefined)));

  // Bitmaps suit the few distinct organizations and corpora; B-trees the many documents and
  // chunks, which replaces, deletes and the idempotent add() filter on.
  const scalarIndexes = async () => {
    await current.table.createIndex("orgId", { config: lancedb.Index.bitmap(), replace: true });
    await current.table.createIndex("corpusId", { config: lancedb.Index.bitmap(), replace: true });
    await current.table.createIndex("documentId", { config: lancedb.Index.btree(), replace: true });
    await current.table.createIndex("chunkId", { config: lancedb.Index.btree(), replace: true });
    hasScalar = true;
  };

  // The build takes minutes at 100,000 rows, so it runs beside the write queue, not in it:
  // ingestion goes on (new rows are scanned exactly until optimize() folds them in), and only
  // compaction waits, because it rewrites the fragments the build is reading.
  let ensuring: Promise<boolean> | undefined;
  const ensureAnn = async (minRows: number, kind: AnnKind): Promise<boolean> => {
    const rows = await serial(async () => {
      if (!hasScalar && (await current.table.countRows()) > 0) await scalarIndexes();
      return (await loadAnn()) ? 0 : current.table.countRows();
    });
    if (hasAnn) return true;
    if (rows < minRows || closed) return false;
    annBuild = reading(async (built) => {
      // k-means refuses more partitions than the data has clusters: halve and retry.
      for (let parts = annPartitions(rows, kind); ; parts = Math.floor(parts / 2)) {
        try {
          await built.createIndex("vector", { config: annIndex(kind, parts, dims) });
          annParts = parts;
          return (hasAnn = true);
        } catch (e) {
          if (parts <= 2 || !/partitions|clusters/i.test(String(e))) throw e;
        }
      }
    }).finally(() => (annBuild = undefined));
    return annBuild;
  };

  let settle: ReturnType<typeof setTimeout> | undefined;
  const afterWrite = async (added: boolean, addedRows = 0) => {
    let fresh = false; // an index built now covers every row already
    if (added && !hasFts) {
      await current.table.createIndex("text", { config: lancedb.Index.fts(), replace: true });
      hasFts = fresh = true;
    }
    if (added && !hasScalar) await scalarIndexes();
    approxRows = approxRows === undefined ? await current.table.countRows() : approxRows + addedRows;
    if (added && !fresh) textLag = true;
    const now = performance.now();
    if (writes++ === 0) pendingSince = now;
    if (settle) clearTimeout(settle);
    settle = undefined;
    // A write queued before close() and committed during it schedules no refresh: a timer armed
    // now would outlive close(), which has already cleared it, and hold the process until it
    // fired (LARGE_SETTLE_MS on a big table) only to find the index closed
    // (test/ingest/lance-close-leaves-no-timer.test.ts).
    if (closed) return;
    const delay = refreshDelay({ now, rows: approxRows, writes, pendingSince, lastMs: lastRefreshMs, lastEnd: lastRefreshEnd });
    if (delay <= 0) return void serial(optimizeNow).catch(() => {});
    settle = setTimeout(() => {
      settle = undefined;
      if (writes > 0 && !closed) void serial(optimizeNow).catch(() => {});
    }, delay);
  };

  const rows = (records: VectorRecord[]) => toArrowTable(records, dims, tableName);

  // Replacements queued while a write runs are applied together: one delete and one add, so
  // concurrent ingestions cost one Lance commit pair instead of one each.
  type Replace = { orgId: string; documentId: string; records: VectorRecord[]; resolve: () => void; reject: (e: unknown) => void };
  let pending: Replace[] = [];
  const flushReplaces = async () => {
    const batch = pending;
    pending = [];
    try {
      await mirrored(async () => {
        const records = batch.flatMap((b) => b.records);
        const data = records.length ? rows(records) : undefined;
        // The loaded copy mirrors the table exactly, so it knows which documents have rows: a
        // first ingestion skips the delete, which costs a Lance commit even when nothing matches.
        const stale = batch.filter((b) => !scan || scan.hasDocument(b.orgId, b.documentId));
        for (const [org, docs] of byOrgSlices(stale, (b) => b.documentId)) {
          await deleteWhere(`orgId = ${uuid(org)} AND documentId IN (${inList(docs)})`);
          for (const d of docs) scan?.deleteDocument(org, d);
        }
        if (data) await current.table.add(data);
        await countAdded(records);
        mirrorUpsert(records);
        await afterWrite(!!data, records.length);
      });
      for (const b of batch) b.resolve();
    } catch (e) {
      for (const b of batch) b.reject(e);
    }
  };

  /** Rows of these chunk ids, if any (all of them when the copy is not loaded). */
  const deleteIds = async (orgId: string, ids: string[]) => {
    for (const part of slices(ids.filter((id) => !scan || scan.hasChunk(orgId, id)))) {
      await deleteWhere(`orgId = ${uuid(orgId)} AND chunkId IN (${inList(part)})`);
      scan?.deleteChunks(orgId, part);
    }
  };

  const scope = (orgId: string, corpusIds: string[]) => `orgId = ${uuid(orgId)} AND corpusId IN (${inList(corpusIds)})`;

  const hits = (rs: Record<string, unknown>[], score: (r: Record<string, unknown>) => number): VectorHit[] =>
    rs.map((r) => ({ chunkId: String(r.chunkId), documentId: String(r.documentId), corpusId: String(r.corpusId), score: score(r) }));

  return {
    tableName,
    dims,
    async add(records) {
      if (!records.length) return;
      const data = rows(records);
      return serial(() => mirrored(async () => {
        for (const [org, ids] of byOrgSlices(records, (r) => r.chunkId)) await deleteIds(org, ids);
        await current.table.add(data);
        await countAdded(records);
        mirrorUpsert(records);
        await afterWrite(true, records.length);
      }));
    },
    async replaceDocument(orgId, documentId, records) {
      uuid(orgId);
      uuid(documentId);
      for (const r of records) if (r.vector.length !== dims) throw new Error(`vector has ${r.vector.length} dimensions, table ${tableName} has ${dims}`);
      return new Promise<void>((resolve, reject) => {
        pending.push({ orgId, documentId, records, resolve, reject });
        if (pending.length === 1) void serial(flushReplaces);
      });
    },
    deleteDocument(orgId, documentId, generation?: number) {
      const gen = generation === undefined ? "" : ` AND generation = ${Math.trunc(generation)}`;
      return serial(() => mirrored(async () => {
        await deleteWhere(`orgId = ${uuid(orgId)} AND documentId = ${uuid(documentId)}${gen}`);
        scan?.deleteDocument(orgId, documentId, generation === undefined ? undefined : Math.trunc(generation));
        await afterWrite(false);
      }));
    },
    deleteDocuments(orgId, documentIds) {
      uuid(orgId);
      if (!documentIds.length) return Promise.resolve();
      return serial(() => mirrored(async () => {
        // The loaded copy knows which documents have rows: those without cost no commit.
        const stale = documentIds.filter((d) => !scan || scan.hasDocument(orgId, d));
        for (const part of slices(stale)) {
          await deleteWhere(`orgId = ${uuid(orgId)} AND documentId IN (${inList(part)})`);
          for (const d of part) scan?.deleteDocument(orgId, d);
        }
        if (stale.length) await afterWrite(false);
      }));
    },
    deleteChunks(orgId, chunkIds) {
      if (!chunkIds.length) return Promise.resolve();
      return serial(() => mirrored(async () => {
        await deleteIds(orgId, chunkIds);
        await afterWrite(false);
      }));
    },
    async countDocument(orgId, documentId, generation) {
      const gen = generation === undefined ? "" : ` AND generation = ${Math.trunc(generation)}`;
      const where = `orgId = ${uuid(orgId)} AND documentId = ${uuid(documentId)}${gen}`;
      return reading((t) => t.countRows(where));
    },
    count: () => reading((t) => t.countRows()),
    texts: (chunkIds) => reading(async (t) => {
      const out = new Map<string, string>();
      for (const ids of slices(chunkIds)) {
        const rs = await t.query().where(`chunkId IN (${inList(ids)})`).select(["chunkId", "text"]).limit(ids.length * 4).toArray();
        for (const r of rs) out.set(String(r.chunkId), String(r.text));
      }
      return out;
    }),
    async searchVector(orgId, corpusIds, vector, limit, opts: VectorSearchOptions = {}) {
      if (!corpusIds.length || limit <= 0) return [];
      const where = scope(orgId, corpusIds); // validates the ids on both paths
      if (scan && !opts.exact && !opts.ann) return scan.search(orgId, corpusIds, vector, limit);
      const rs = await reading((t) => {
        let q = t.vectorSearch(Array.from(vector)).distanceType("cosine").where(where);
        if (opts.exact) q = q.bypassVectorIndex();
        else if (hasAnn) {
          const ann = { ...ANN_SEARCH, ...opts.ann };
          q = q.nprobes(Math.max(1, Math.ceil(ann.probeFraction * annParts)));
          if (ann.refineFactor > 0) q = q.refineFactor(ann.refineFactor);
        }
        return q.select(["chunkId", "documentId", "corpusId", "_distance"]).limit(limit).toArray();
      });
      return hits(rs, (r) => 1 - Number(r._distance));
    },
    async searchText(orgId, corpusIds, query, limit, opts: TextSearchOptions = {}) {
      if (!corpusIds.length || limit <= 0 || !query.trim() || !hasFts) return [];
      if (textLag && (approxRows ??= await reading((t) => t.countRows())) <= FTS_SYNC_MAX_ROWS) await refreshText();
      const where = scope(orgId, corpusIds);
      if (statsDue()) statsLoad = queueStatsLoad();
      // The index only proposes: its scores use the statistics of every organization's rows, so
      // its best candidates are ranked again on the caller's own (scoped-bm25.ts).
      const pool = Math.max(limit, opts.candidates ?? Math.max(limit * TEXT_CANDIDATE_FACTOR, TEXT_CANDIDATES_MIN));
      const rs = await reading((t) =>
        t.query().fullTextSearch(query, { columns: ["text"] }).where(where).select(["chunkId", "documentId", "corpusId", "text", "_score"]).limit(pool).toArray());
      const candidates = rs.map((r) => ({ chunkId: String(r.chunkId), documentId: String(r.documentId), corpusId: String(r.corpusId), text: String(r.text ?? "") }));
      return rankScoped(query, candidates, stats?.of(orgId) ?? candidateStats(candidates), limit);
    },
    optimize: () => serial(async () => {
      await annBuild?.catch(() => {});
      await optimizeNow();
    }),
    ensureVectorIndex(minRows = ANN_MIN_ROWS, kind = ANN_KIND) {
      // One check or build at a time; callers arriving meanwhile share its answer.
      ensuring ??= ensureAnn(minRows, kind).finally(() => (ensuring = undefined));
      return ensuring;
    },
    vectorCopyReady: () => scanLoad,
    textStatsReady: () => statsLoad.then((s) => !!s),
    async close() {
      if (closed) return;
      closed = true;
      // A paced refresh can be minutes away on a big table: it must not keep the process alive.
      if (settle) clearTimeout(settle);
      await statsLoad; // a count outside the queue stops at its next batch
      await queue;
      // In the write queue, so the version saved is the one the statistics describe even if a
      // write was queued while closing (the server stops its writers first; this is for the rest).
      await serial(saveSnapshot);
      scan = undefined;
      await annBuild?.catch(() => {});
      retire(current);
    },
  };
}
