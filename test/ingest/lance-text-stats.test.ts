// Text search ranks on statistics each organization's writes keep (store/scoped-bm25.ts). They
// must hold no row of another organization, count every way a row leaves the table, and come
// back after a restart (saved by a clean close, else counted from the table): each test
// compares scores with those of a table that only ever held the rows they should describe.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { existsSync } from "node:fs";
import { dropLanceTable, openLanceIndex, textStatsFile, type LanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-text-stats-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const orgA = newId(), orgB = newId(), corpusA = newId(), corpusB = newId(), otherB = newId();
const row = (orgId: string, corpusId: string, documentId: string, text: string, chunkId = newId(), generation = 1): VectorRecord =>
  ({ chunkId, orgId, corpusId, documentId, generation, text, vector: Float32Array.from([1, 0]) });

// B's own rows: the same length, differing in the rarer word, so the statistics decide the order.
const docB = newId();
const bRows = [
  row(orgB, corpusB, docB, "the committee reviewed the figures zebra"),
  row(orgB, corpusB, docB, "the committee reviewed the figures quokka"),
  row(orgB, corpusB, docB, "the committee reviewed the numbers quokka"),
  row(orgB, corpusB, docB, "an unrelated note on ferries and lighthouses"),
];
const zebras = (orgId: string, corpusId: string, documentId: string, n: number) =>
  Array.from({ length: n }, (_, i) => row(orgId, corpusId, documentId, `zebra zebra zebra report number ${i}`));
const QUERIES = ["zebra quokka", "committee figures", "lighthouses zebra"];

let counter = 0;
async function open(): Promise<LanceIndex> {
  return openLanceIndex(join(dir, `t${counter++}`), "test-embed", 2);
}
async function scores(idx: LanceIndex): Promise<string[]> {
  const out: string[] = [];
  for (const q of QUERIES) for (const h of await idx.searchText(orgB, [corpusB], q, 10)) out.push(`${q}|${h.chunkId}|${h.score.toFixed(6)}`);
  return out;
}

// The reference: a table that only ever held B's rows.
const reference = (async () => {
  const idx = await open();
  try {
    await idx.add(bRows);
    return await scores(idx);
  } finally {
    await idx.close();
  }
})();

test("another organization's rows leave one's scores as in a table without them", async () => {
  const idx = await open();
  try {
    await idx.add(zebras(orgA, corpusA, newId(), 30));
    await idx.add(bRows);
    await idx.add(zebras(orgA, corpusA, newId(), 30));
    expect(await scores(idx)).toEqual(await reference);
  } finally {
    await idx.close();
  }
});

test("rows of one's own that are removed no longer count, whichever way they go", async () => {
  const idx = await open();
  try {
    await idx.add(zebras(orgA, corpusA, newId(), 20));
    await idx.add(bRows);
    const expected = await reference;
    // Own rows in another corpus count (the statistics are the organization's), until removed.
    const extra = () => zebras(orgB, otherB, newId(), 10);
    const removals: [string, (rows: VectorRecord[]) => Promise<unknown>][] = [
      ["deleteDocument", (rs) => idx.deleteDocument(orgB, rs[0]!.documentId)],
      ["deleteDocument of a generation", (rs) => idx.deleteDocument(orgB, rs[0]!.documentId, 1)],
      ["deleteDocuments", (rs) => idx.deleteDocuments(orgB, [rs[0]!.documentId])],
      ["deleteChunks", (rs) => idx.deleteChunks(orgB, rs.map((r) => r.chunkId))],
      ["replaceDocument with no rows", (rs) => idx.replaceDocument(orgB, rs[0]!.documentId, [])],
    ];
    for (const [how, remove] of removals) {
      const rs = extra();
      await idx.add(rs);
      expect(await scores(idx), how).not.toEqual(expected);
      await remove(rs);
      expect(await scores(idx), how).toEqual(expected);
    }
    // Written again under the same ids with B's own text back: only the new text counts.
    const rewritten = zebras(orgB, corpusB, docB, 2).map((r, i) => ({ ...r, chunkId: bRows[i]!.chunkId }));
    await idx.add(rewritten);
    expect(await scores(idx)).not.toEqual(expected);
    await idx.add(bRows.slice(0, 2));
    expect(await scores(idx)).toEqual(expected);
    // A document replaced by its next generation: the old generation's rows no longer count.
    const doc = newId();
    await idx.replaceDocument(orgB, doc, zebras(orgB, otherB, doc, 10));
    await idx.replaceDocument(orgB, doc, [row(orgB, otherB, doc, "zebra", newId(), 2)]);
    await idx.replaceDocument(orgB, doc, []);
    expect(await scores(idx)).toEqual(expected);
  } finally {
    await idx.close();
  }
});

test("after a clean close the statistics are taken from its snapshot, unless the table has changed since", async () => {
  const path = join(dir, "restart");
  let idx = await openLanceIndex(path, "test-embed", 2);
  const extra = zebras(orgB, otherB, newId(), 10);
  try {
    await idx.add(zebras(orgA, corpusA, newId(), 30));
    await idx.add(bRows);
    await idx.add(extra);
    const withExtra = await scores(idx);
    await idx.close();
    const file = textStatsFile(path, idx.tableName);
    expect(existsSync(file)).toBe(true);
    idx = await openLanceIndex(path, "test-embed", 2);
    expect(await idx.textStatsReady()).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(await scores(idx)).toEqual(withExtra);
    await idx.close();

    // Rows deleted by something other than this driver: the snapshot no longer describes the
    // table, so the statistics are counted from it (until then text search ranks on its
    // candidates' statistics, README).
    const conn = await lancedb.connect(path);
    const t = await conn.openTable(idx.tableName);
    await t.delete(`documentId = '${extra[0]!.documentId}'`);
    t.close();
    conn.close();
    idx = await openLanceIndex(path, "test-embed", 2);
    expect(await idx.textStatsReady()).toBe(true);
    expect(await scores(idx)).toEqual(await reference);
  } finally {
    await idx.close();
  }
});

test("dropping a table drops its saved statistics, which a new table of that name must not take", async () => {
  const path = join(dir, "dropped");
  const idx = await openLanceIndex(path, "test-embed", 2);
  await idx.add(bRows);
  await idx.close();
  expect(existsSync(textStatsFile(path, idx.tableName))).toBe(true);
  await dropLanceTable(path, idx.tableName);
  expect(existsSync(textStatsFile(path, idx.tableName))).toBe(false);
});
