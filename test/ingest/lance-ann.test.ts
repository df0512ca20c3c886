import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { annPartitions, openLanceIndex, tableNameFor, type LanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { startVectorIndexing } from "../../src/ingest/start.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-lance-ann-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Deterministic vectors in 16 dims around 12 cluster centres, so k-means has clusters to find.
let seed = 9;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296);
const centres = Array.from({ length: 12 }, () => Array.from({ length: 16 }, () => rand() - 0.5));
const point = (i: number) => Float32Array.from(centres[i % 12]!, (c) => c + (rand() - 0.5) * 0.2);
const orgA = newId(), orgB = newId(), corpusA = newId(), corpusB = newId(), doc = newId();
const rec = (orgId: string, corpusId: string, i: number): VectorRecord =>
  ({ chunkId: newId(), orgId, corpusId, documentId: doc, generation: 1, text: `chunk ${i}`, vector: point(i) });

async function indexedColumns(): Promise<string[]> {
  const conn = await lancedb.connect(dir);
  const t = await conn.openTable(tableNameFor("ann-test"));
  const cols = (await t.listIndices()).flatMap((i) => i.columns).sort();
  t.close();
  conn.close();
  return cols;
}

describe("approximate vector index", () => {
  let ix: LanceIndex;
  const a = Array.from({ length: 900 }, (_, i) => rec(orgA, corpusA, i));
  const b = Array.from({ length: 100 }, (_, i) => rec(orgB, corpusB, i));

  test("partitions follow sqrt(rows)", () => {
    expect([annPartitions(100), annPartitions(10_000), annPartitions(100_000)]).toEqual([10, 100, 316]);
  });

  test("the first rows bring the FTS index and the scalar indexes the filters use", async () => {
    ix = await openLanceIndex(dir, "ann-test", 16);
    await ix.add([...a, ...b]);
    expect(await indexedColumns()).toEqual(["chunkId", "corpusId", "documentId", "orgId", "text"]);
  });

  test("below the threshold nothing is built; above it the index is built once", async () => {
    expect(await ix.ensureVectorIndex(2000)).toBe(false);
    expect((await indexedColumns()).includes("vector")).toBe(false);
    const [first, second] = await Promise.all([ix.ensureVectorIndex(500), ix.ensureVectorIndex(500)]);
    expect([first, second]).toEqual([true, true]);
    expect((await indexedColumns()).filter((c) => c === "vector")).toEqual(["vector"]);
  });

  test("indexed search stays scoped, finds a stored vector first and agrees with exact search", async () => {
    let agree = 0;
    for (const r of a.slice(0, 40)) {
      const approx = await ix.searchVector(orgA, [corpusA], r.vector, 10);
      const exact = await ix.searchVector(orgA, [corpusA], r.vector, 10, { exact: true });
      expect(approx[0]!.chunkId).toBe(r.chunkId);
      expect(approx.every((h) => h.corpusId === corpusA)).toBe(true);
      const want = new Set(exact.map((h) => h.chunkId));
      agree += approx.filter((h) => want.has(h.chunkId)).length;
    }
    expect(agree / 400).toBeGreaterThanOrEqual(0.9);
    // Org B's rows sit in the same clusters, yet never come back for org A (and the reverse).
    const forB = await ix.searchVector(orgB, [corpusB], a[0]!.vector, 50);
    expect(forB.length).toBe(50);
    expect(forB.every((h) => h.corpusId === corpusB)).toBe(true);
    expect(await ix.searchVector(orgA, [corpusB], a[0]!.vector, 10)).toEqual([]);
  });

  test("rows added after the build are found before and after optimize", async () => {
    const late = rec(orgA, corpusA, 5);
    await ix.add([late]);
    expect((await ix.searchVector(orgA, [corpusA], late.vector, 1))[0]!.chunkId).toBe(late.chunkId);
    await ix.optimize();
    expect((await ix.searchVector(orgA, [corpusA], late.vector, 1))[0]!.chunkId).toBe(late.chunkId);
  });

  test("a reopened table knows it has the index", async () => {
    await ix.close();
    ix = await openLanceIndex(dir, "ann-test", 16);
    expect(await ix.ensureVectorIndex(10_000_000)).toBe(true);
    await ix.close();
  });
});

describe("background indexing", () => {
  const fake = (answers: (boolean | Error)[]) => {
    const calls: number[] = [];
    const vectors = {
      ensureVectorIndex: async () => {
        calls.push(Date.now());
        const a = answers[Math.min(calls.length - 1, answers.length - 1)]!;
        if (a instanceof Error) throw a;
        return a;
      },
    } as unknown as LanceIndex;
    return { vectors, calls };
  };
  const errors: string[] = [];
  const log = { info: () => {}, error: (m: string) => void errors.push(m) };
  const until = async (cond: () => boolean, ms = 5000) => {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error("condition not met in time");
      await Bun.sleep(5);
    }
  };

  test("checks at start and periodically, logs a failure, stops asking once the index exists", async () => {
    const { vectors, calls } = fake([false, new Error("boom"), true]);
    const stop = startVectorIndexing(vectors, log, 20);
    await until(() => calls.length >= 3);
    const after = calls.length;
    await Bun.sleep(80); // a stopped-asking check needs elapsed time by nature
    expect(calls.length).toBe(after);
    expect(errors).toEqual(["vector index build failed; searches stay exact"]);
    await stop();
  });

  test("stop ends the checks", async () => {
    const { vectors, calls } = fake([false]);
    const stop = startVectorIndexing(vectors, log, 10);
    await until(() => calls.length >= 1);
    await stop();
    const n = calls.length;
    await Bun.sleep(50);
    expect(calls.length).toBe(n);
  });
});
