// LanceDB 0.39 keeps two descriptors on replaced full-text index files (and that index in memory)
// in the handle that ran optimize(), until the handle closes: the driver reopens the table after
// each optimize and closes the old handle once reads that started on it are over. Descriptors
// must not pile up over many optimizes, and searches running across a reopen must still answer.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-lance-handles-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** This process's open descriptors on files of the table's directory. */
const openInTable = () =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false;
    }
  }).length;

test.skipIf(process.platform !== "linux")("60 writes each followed by optimize(): no descriptors pile up, searches across the reopens answer", async () => {
  const ix = await openLanceIndex(dir, "handles", 4);
  const org = newId(), corpus = newId();
  const searches: Promise<unknown>[] = [];
  let left: number;
  try {
    for (let i = 0; i < 60; i++) {
      const doc = newId();
      await ix.replaceDocument(org, doc, [0, 1].map((j) => ({
        chunkId: newId(), orgId: org, corpusId: corpus, documentId: doc, generation: 1,
        text: `document${i} part${j} pumps valves`, vector: Float32Array.from([i + 1, j + 1, 1, 0.5]),
      })));
      // Started before the optimize and its reopen, finished after them.
      searches.push(ix.searchText(org, [corpus], `document${i}`, 5).then((h) => h.map((x) => x.documentId)).then((ids) => expect(ids).toEqual([doc, doc])));
      searches.push(ix.searchVector(org, [corpus], Float32Array.from([1, 1, 1, 1]), 3, { exact: true }).then((h) => expect(h.length).toBe(Math.min(3, 2 * (i + 1)))));
      await ix.optimize();
    }
    await Promise.all(searches);
    // Query objects of finished searches may hold their files until collected; a handle never
    // closed holds them for good (two per optimize once the table has some 90 rows: 30 here).
    const deadline = Date.now() + 5_000;
    do {
      Bun.gc(true);
      left = openInTable();
    } while (left > 2 && Date.now() < deadline && (await Bun.sleep(20), true));
  } finally {
    await ix.close();
  }
  expect(left).toBeLessThanOrEqual(2);
  // Closed, nothing may stay open; a query object of the last searches may still need a
  // collection to let its file go (seen once under a loaded full-suite run: 1 left at once).
  const closedBy = Date.now() + 5_000;
  let after: number;
  do {
    Bun.gc(true);
    after = openInTable();
  } while (after > 0 && Date.now() < closedBy && (await Bun.sleep(20), true));
  expect(after).toBe(0);
});
