// The LanceDB write path: records reach the table as Arrow columns built by hand (lance-rows.ts),
// and replacements skip the delete when the in-memory copy shows the document has no rows.
// Both must be invisible: what is read back is exactly what was written, and a replaced
// document never keeps rows of its previous version, whether the copy was loaded or not.
import { afterAll, expect, test } from "bun:test";
import * as lancedb from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex, tableNameFor } from "../../src/store/lance.ts";
import { toArrowTable } from "../../src/store/lance-rows.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-lance-writes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const org = newId(), corpus = newId();
const rec = (documentId: string, text: string, v: number[], generation = 1): VectorRecord =>
  ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId, generation, text, vector: Float32Array.from(v) });

/** Every row of the table as plain values, read with a connection of its own. */
async function readBack(embedder: string) {
  const conn = await lancedb.connect(dir);
  try {
    const t = await conn.openTable(tableNameFor(embedder));
    const rows = await t.query().toArray();
    return rows
      .map((r) => ({
        chunkId: String(r.chunkId), orgId: String(r.orgId), corpusId: String(r.corpusId), documentId: String(r.documentId),
        generation: Number(r.generation), text: String(r.text), vector: Array.from(r.vector as Iterable<number>),
      }))
      .sort((a, b) => a.text.localeCompare(b.text));
  } finally {
    conn.close();
  }
}

const plain = (r: VectorRecord) => ({ ...r, vector: Array.from(r.vector) });

test("written rows read back exactly: multi-byte text, empty text, distinct vectors, generations", async () => {
  const doc = newId();
  const rs = [
    rec(doc, "", [0.25, -1, 3.5]),
    rec(doc, "Ünïcødé — 東京 🚀 text", [1e-7, 2, -0.5], 3),
    rec(doc, "plain ascii", [-3, 0, 7.125], 2),
  ];
  const ix = await openLanceIndex(dir, "writes-a", 3);
  await ix.add(rs);
  await ix.close();
  expect(await readBack("writes-a")).toEqual(rs.map(plain).sort((a, b) => a.text.localeCompare(b.text)));
});

test("the Arrow table has one row per record and refuses a vector of another width", () => {
  const doc = newId();
  const t = toArrowTable([rec(doc, "a", [1, 2]), rec(doc, "b", [3, 4])], 2, "t");
  expect(t.numRows).toBe(2);
  expect(Array.from(t.getChild("vector")!.get(1) as Iterable<number>)).toEqual([3, 4]);
  expect(() => toArrowTable([rec(doc, "c", [1, 2, 3])], 2, "t")).toThrow("3 dimensions");
});

test("a replacement drops the previous rows, with the copy loaded and after reopening", async () => {
  const doc = newId(), other = newId();
  let ix = await openLanceIndex(dir, "writes-b", 2);
  await ix.replaceDocument(org, doc, [rec(doc, "first version", [1, 0], 1)]); // new document: no delete needed
  await ix.replaceDocument(org, other, [rec(other, "another document", [0, 1], 1)]);
  await ix.replaceDocument(org, doc, [rec(doc, "second version", [0.6, 0.8], 2)]);
  expect((await readBack("writes-b")).map((r) => r.text)).toEqual(["another document", "second version"]);
  await ix.close();

  // A new process: the copy is loaded from the table and must know the document has rows.
  ix = await openLanceIndex(dir, "writes-b", 2);
  expect(await ix.vectorCopyReady()).toBe(true);
  await ix.replaceDocument(org, doc, [rec(doc, "third version", [0, 1], 3), rec(doc, "third version, part two", [1, 0], 3)]);
  expect((await readBack("writes-b")).map((r) => `${r.text}@${r.generation}`)).toEqual(["another document@1", "third version@3", "third version, part two@3"]);
  expect(await ix.countDocument(org, doc)).toBe(2);
  // Replacing with nothing empties the document.
  await ix.replaceDocument(org, doc, []);
  expect(await ix.countDocument(org, doc)).toBe(0);
  expect(await ix.countDocument(org, other)).toBe(1);
  await ix.close();
});

test("re-adding chunk ids replaces them after reopening (idempotent add)", async () => {
  const doc = newId();
  const r = rec(doc, "original", [1, 0]);
  let ix = await openLanceIndex(dir, "writes-c", 2);
  await ix.add([r]);
  await ix.close();
  ix = await openLanceIndex(dir, "writes-c", 2);
  await ix.add([{ ...r, text: "rewritten", vector: Float32Array.from([0, 1]) }]);
  expect(await readBack("writes-c")).toEqual([{ ...plain(r), text: "rewritten", vector: [0, 1] }]);
  await ix.close();
});
