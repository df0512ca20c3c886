import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { openLanceIndex, tableNameFor, type LanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";

// The driver's in-memory copy of the vectors against LanceDB's own exact search on the same
// table: after every kind of write, and after reopening, both must hold exactly the same rows
// (a search whose limit exceeds the rows lists them all) and rank them the same way.
const dir = mkdtempSync(join(tmpdir(), "kbqa-lance-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DIMS = 24;
let seed = 3;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296);
const vec = () => Float32Array.from({ length: DIMS }, () => rand() * 2 - 1);
const orgA = newId(), orgB = newId(), c1 = newId(), c2 = newId();
const rec = (orgId: string, corpusId: string, documentId: string, generation = 1): VectorRecord =>
  ({ chunkId: newId(), orgId, corpusId, documentId, generation, text: "chunk text", vector: vec() });
const scopes: [string, string[]][] = [[orgA, [c1]], [orgA, [c2]], [orgA, [c1, c2]], [orgB, [c1]]];

async function expectSameAsExact(ix: LanceIndex) {
  for (const [org, corpora] of scopes) {
    const q = vec();
    const all = async (exact: boolean) => (await ix.searchVector(org, corpora, q, 10_000, { exact })).map((h) => `${h.chunkId} ${h.documentId} ${h.corpusId}`).sort();
    expect(await all(false)).toEqual(await all(true));
    const copy = await ix.searchVector(org, corpora, q, 10);
    const exact = await ix.searchVector(org, corpora, q, 10, { exact: true });
    expect(copy.map((h) => h.chunkId)).toEqual(exact.map((h) => h.chunkId));
    copy.forEach((h, i) => expect(Math.abs(h.score - exact[i]!.score)).toBeLessThan(1e-4));
  }
}

describe("in-memory copy of a LanceDB table", () => {
  let ix: LanceIndex;
  const docs = Array.from({ length: 6 }, () => newId());

  test("is ready after opening and follows adds", async () => {
    ix = await openLanceIndex(dir, "copy-test", DIMS);
    expect(await ix.vectorCopyReady()).toBe(true);
    await ix.add(docs.flatMap((d, i) => Array.from({ length: 40 }, () => rec(i === 5 ? orgB : orgA, i % 2 ? c2 : c1, d))));
    await expectSameAsExact(ix);
  });

  test("follows replaced documents, deletes by generation and by chunk", async () => {
    await Promise.all([
      ix.replaceDocument(orgA, docs[0]!, Array.from({ length: 15 }, () => rec(orgA, c1, docs[0]!, 2))),
      ix.replaceDocument(orgA, docs[1]!, []),
    ]);
    await ix.deleteDocument(orgA, docs[2]!, 7); // no such generation: nothing goes
    await ix.deleteDocument(orgA, docs[3]!, 1);
    const some = (await ix.searchVector(orgA, [c1], vec(), 5)).map((h) => h.chunkId);
    await ix.deleteChunks(orgA, some);
    await ix.deleteChunks(orgB, some); // another organization's ids: nothing goes
    await expectSameAsExact(ix);
    const left = await ix.searchVector(orgA, [c1, c2], vec(), 10_000);
    expect(left.length).toBe(15 + 40 + 40 - 5);
    expect(left.some((h) => some.includes(h.chunkId))).toBe(false);
  });

  test("re-adding a chunk replaces it", async () => {
    const [hit] = await ix.searchVector(orgA, [c1], vec(), 1);
    const again = { ...rec(orgA, c1, hit!.documentId), chunkId: hit!.chunkId };
    await ix.add([again]);
    const [first] = await ix.searchVector(orgA, [c1], again.vector, 1);
    expect(first!.chunkId).toBe(again.chunkId);
    expect(first!.score).toBeCloseTo(1, 4);
    await expectSameAsExact(ix);
  });

  test("is loaded again from the table on reopening, with writes arriving during the load", async () => {
    await ix.close();
    ix = await openLanceIndex(dir, "copy-test", DIMS);
    const extra = Array.from({ length: 10 }, () => rec(orgB, c1, docs[5]!));
    const writes = Promise.all([ix.add(extra), ix.deleteDocument(orgA, docs[4]!)]);
    expect(await ix.vectorCopyReady()).toBe(true);
    await writes;
    await expectSameAsExact(ix);
    expect((await ix.searchVector(orgB, [c1], extra[3]!.vector, 1))[0]!.chunkId).toBe(extra[3]!.chunkId);
  });

  test("answers from memory: a row deleted behind the driver's back is still proposed, LanceDB's exact search no longer has it", async () => {
    const target = (await ix.searchVector(orgB, [c1], vec(), 1))[0]!;
    const conn = await lancedb.connect(dir);
    const table = await conn.openTable(tableNameFor("copy-test"));
    await table.delete(`chunkId = '${target.chunkId}'`);
    table.close();
    conn.close();
    const ids = async (exact: boolean) => (await ix.searchVector(orgB, [c1], vec(), 10_000, { exact })).map((h) => h.chunkId);
    expect(await ids(false)).toContain(target.chunkId);
    await ix.close();
    ix = await openLanceIndex(dir, "copy-test", DIMS);
    expect(await ix.vectorCopyReady()).toBe(true);
    expect(await ids(false)).not.toContain(target.chunkId);
    await expectSameAsExact(ix);
    await ix.close();
  });
});
