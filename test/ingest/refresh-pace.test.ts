// A background optimize() on a big table rewrites the whole IVF_FLAT index and, every other
// time, the table's one big fragment (12 s at 102,000 rows for 64 new rows), in the write queue:
// one started in a half-second pause of an ingestion burst held every document of the burst from
// READY for its whole length. On tables above FTS_SYNC_MAX_ROWS it now waits for a longer pause,
// or for rows to have waited a minute, and is paced by its own measured cost; small tables keep
// the half-second settle that their text searches rely on.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import {
  FTS_SETTLE_MS, FTS_SYNC_MAX_ROWS, LARGE_EVERY_MS, LARGE_SETTLE_MS, OPTIMIZE_EVERY, OPTIMIZE_PACE, refreshDelay, type RefreshState,
} from "../../src/store/refresh-pace.ts";
import { unindexedTextRows } from "../helpers/lance-text-index.ts";

const big = FTS_SYNC_MAX_ROWS + 1;
const at = (s: Partial<RefreshState>): RefreshState => ({ now: 1_000_000, rows: big, writes: 1, pendingSince: 1_000_000, lastMs: 0, lastEnd: 0, ...s });

test("small tables: refreshed once a burst settles, or every OPTIMIZE_EVERY writes", () => {
  expect(refreshDelay(at({ rows: FTS_SYNC_MAX_ROWS }))).toBe(FTS_SETTLE_MS);
  expect(refreshDelay(at({ rows: 10, writes: OPTIMIZE_EVERY }))).toBe(0);
  // A slow last refresh does not hold a small table back: its searches wait for the refresh.
  expect(refreshDelay(at({ rows: 10, lastMs: 60_000, lastEnd: 999_000 }))).toBe(FTS_SETTLE_MS);
});

test("big tables: a pause within a burst or many writes do not start a refresh; a longer pause does", () => {
  expect(refreshDelay(at({}))).toBe(LARGE_SETTLE_MS);
  expect(refreshDelay(at({ writes: 10 * OPTIMIZE_EVERY, pendingSince: 1_000_000 - LARGE_EVERY_MS + 1 }))).toBe(LARGE_SETTLE_MS);
  // Rows waiting for a minute under steady writes: now, when the last refresh is paid off.
  expect(refreshDelay(at({ writes: 500, pendingSince: 1_000_000 - LARGE_EVERY_MS }))).toBe(0);
});

test("big tables: the next refresh waits OPTIMIZE_PACE times the last one's duration after it ended", () => {
  const lastMs = 20_000;
  const lastEnd = 1_000_000 - 30_000; // ended 30 s ago; paced until 80 s after it
  const steady = at({ writes: 500, pendingSince: 1_000_000 - 2 * LARGE_EVERY_MS, lastMs, lastEnd });
  expect(refreshDelay(steady)).toBe(lastEnd + OPTIMIZE_PACE * lastMs - steady.now);
  expect(refreshDelay({ ...steady, now: lastEnd + OPTIMIZE_PACE * lastMs })).toBe(0);
  // After a pause as well: a trickle of writes does not buy one refresh each.
  expect(refreshDelay(at({ lastMs, lastEnd }))).toBe(lastEnd + OPTIMIZE_PACE * lastMs - 1_000_000);
});

const dir = mkdtempSync(join(tmpdir(), "kbqa-refresh-pace-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const org = newId(), corpus = newId();
const rows = (n: number, word: string): VectorRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    chunkId: newId(), orgId: org, corpusId: corpus, documentId: newId(), generation: 1, text: `${word} row ${i}`, vector: Float32Array.from([1, i % 7]),
  }));

test("a big table: writes with pauses longer than the small-table settle stay unfolded and findable; folded once writes stop", async () => {
  const ix = await openLanceIndex(dir, "pace", 2);
  try {
    await ix.add(rows(big, "old")); // the FTS index is built over these
    expect(await unindexedTextRows(dir, "pace")).toBe(0);
    const fresh: VectorRecord[] = [];
    for (let i = 0; i < 3; i++) {
      const r = rows(2, "fresh");
      fresh.push(...r);
      await ix.add(r);
      // The pause between writes of a burst: input of the test, longer than the small-table settle.
      await Bun.sleep(FTS_SETTLE_MS + 300);
    }
    expect(await unindexedTextRows(dir, "pace")).toBe(fresh.length);
    // Not folded in, yet found (LanceDB scans them).
    const hits = await ix.searchText(org, [corpus], "fresh", 10);
    expect(new Set(hits.map((h) => h.chunkId))).toEqual(new Set(fresh.map((r) => r.chunkId)));
    const deadline = performance.now() + 60_000;
    while ((await unindexedTextRows(dir, "pace")) > 0 && performance.now() < deadline) await Bun.sleep(250);
    expect(await unindexedTextRows(dir, "pace")).toBe(0);
  } finally {
    await ix.close();
  }
}, 120_000);
