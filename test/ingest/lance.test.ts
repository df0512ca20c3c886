import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex, tableNameFor, type LanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-lance-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const vec = (...xs: number[]) => Float32Array.from(xs);
const orgA = newId(), orgB = newId(), corpusA = newId(), corpusA2 = newId(), corpusB = newId();
const docA = newId(), docA2 = newId(), docB = newId();
const rec = (orgId: string, corpusId: string, documentId: string, text: string, vector: Float32Array, generation = 1): VectorRecord =>
  ({ chunkId: newId(), orgId, corpusId, documentId, generation, text, vector });

describe("LanceDB vector index", () => {
  let ix: LanceIndex;
  const a1 = rec(orgA, corpusA, docA, "the quick brown fox jumps", vec(1, 0, 0, 0));
  const a2 = rec(orgA, corpusA, docA, "photosynthesis in green plants", vec(0, 1, 0, 0));
  const a3 = rec(orgA, corpusA2, docA2, "green tea and brown rice", vec(0, 0, 1, 0));
  const b1 = rec(orgB, corpusB, docB, "brown fox of another organization", vec(1, 0, 0, 0));

  test("table name is a slug of the embedder id", () => {
    expect(tableNameFor("builtin-hash-embed")).toBe("chunks__builtin_hash_embed");
    expect(tableNameFor("Xenova/multilingual-e5-small")).toBe("chunks__xenova_multilingual_e5_small");
  });

  test("add, count, vector search scoped by org and corpus, cosine score", async () => {
    ix = await openLanceIndex(dir, "test-embed", 4);
    await ix.add([a1, a2]);
    await ix.add([a3, b1]);
    expect(await ix.countDocument(orgA, docA)).toBe(2);
    expect(await ix.countDocument(orgA, docA, 2)).toBe(0);
    expect(await ix.countDocument(orgB, docA)).toBe(0);
    const hits = await ix.searchVector(orgA, [corpusA, corpusA2], vec(1, 0.1, 0, 0), 10);
    expect(hits.map((h) => h.chunkId).sort()).toEqual([a1.chunkId, a2.chunkId, a3.chunkId].sort());
    expect(hits[0]).toMatchObject({ chunkId: a1.chunkId, documentId: docA, corpusId: corpusA });
    expect(hits[0]!.score).toBeCloseTo(1 / Math.sqrt(1.01), 4);
    expect((await ix.searchVector(orgA, [corpusA2], vec(1, 0, 0, 0), 10)).map((h) => h.chunkId)).toEqual([a3.chunkId]);
    expect(await ix.searchVector(orgA, [], vec(1, 0, 0, 0), 10)).toEqual([]);
  });

  test("full-text search finds rows added after the FTS index, scoped by org", async () => {
    const late = rec(orgA, corpusA, docA, "zebras graze on savanna grass", vec(0, 0, 0, 1));
    await ix.add([late]);
    const hits = await ix.searchText(orgA, [corpusA], "zebras", 5);
    expect(hits.map((h) => h.chunkId)).toEqual([late.chunkId]);
    const fox = await ix.searchText(orgA, [corpusA, corpusA2], "brown fox", 5);
    expect(fox[0]!.chunkId).toBe(a1.chunkId);
    expect(fox.some((h) => h.chunkId === b1.chunkId)).toBe(false);
    await ix.optimize();
    expect((await ix.searchText(orgA, [corpusA], "zebras", 5)).map((h) => h.chunkId)).toEqual([late.chunkId]);
  });

  test("re-adding a chunk replaces it; deleteChunks and deleteDocument are scoped", async () => {
    await ix.add([{ ...a2, text: "photosynthesis again" }]);
    expect(await ix.countDocument(orgA, docA)).toBe(3);
    await ix.deleteChunks(orgB, [a2.chunkId]); // wrong org: nothing
    expect(await ix.countDocument(orgA, docA)).toBe(3);
    await ix.deleteChunks(orgA, [a2.chunkId]);
    expect(await ix.countDocument(orgA, docA)).toBe(2);
    await ix.deleteDocument(orgB, docA);
    expect(await ix.countDocument(orgA, docA)).toBe(2);
    await ix.replaceDocument(orgA, docA, [rec(orgA, corpusA, docA, "fresh", vec(1, 1, 0, 0), 2)]);
    expect(await ix.countDocument(orgA, docA)).toBe(1);
    expect(await ix.countDocument(orgA, docA, 2)).toBe(1);
    await ix.deleteDocument(orgA, docA);
    expect(await ix.countDocument(orgA, docA)).toBe(0);
    expect(await ix.countDocument(orgB, docB)).toBe(1);
  });

  test("rejects non-uuid ids and wrong widths", async () => {
    await expect(ix.searchVector("x' OR '1'='1", [corpusA], vec(1, 0, 0, 0), 3)).rejects.toThrow("not a uuid");
    await expect(ix.add([rec(orgA, corpusA, docA, "t", vec(1, 0))])).rejects.toThrow("dimensions");
  });

  test("reopens the same table with its rows", async () => {
    await ix.close();
    ix = await openLanceIndex(dir, "test-embed", 4);
    expect(await ix.countDocument(orgB, docB)).toBe(1);
    expect((await ix.searchText(orgB, [corpusB], "organization", 3)).map((h) => h.chunkId)).toEqual([b1.chunkId]);
    expect(await ix.ensureVectorIndex()).toBe(false);
    await ix.close();
  });
});
