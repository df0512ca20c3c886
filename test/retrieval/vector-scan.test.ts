import { describe, expect, test } from "bun:test";
import { dotKernel } from "../../src/store/simd-dot.ts";
import { createVectorScan, type ScanRow } from "../../src/store/vector-scan.ts";
import { mulberry32 } from "../helpers/seeded.ts";

const rand = mulberry32(7);
const randomVector = (dims: number) => Float32Array.from({ length: dims }, () => rand() * 2 - 1);
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb);
};
const ORG_A = "a0000000-0000-4000-8000-000000000000";
const ORG_B = "b0000000-0000-4000-8000-000000000000";
const row = (o: Partial<ScanRow> & { vector: Float32Array }, i: number): ScanRow => ({
  chunkId: `chunk-${i}`, orgId: ORG_A, corpusId: "c1", documentId: `doc-${Math.floor(i / 10)}`, generation: 1, ...o,
});

describe("SIMD dot kernel", () => {
  test("matches a scalar loop, extreme values included", () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const dot = dotKernel(memory)!;
    expect(dot).toBeDefined();
    for (const stride of [32, 64, 416]) {
      const q = new Int16Array(memory.buffer, 0, stride);
      const vecAt = 2048;
      const rows = 12;
      const v = new Int8Array(memory.buffer, vecAt, rows * stride);
      q.forEach((_, i) => (q[i] = i % 7 === 0 ? -32767 : Math.round((rand() * 2 - 1) * 32767)));
      v.forEach((_, i) => (v[i] = i % 5 === 0 ? -127 : i % 11 === 0 ? 127 : Math.round((rand() * 2 - 1) * 127)));
      const order = [11, 0, 5, 5, 3];
      const idxAt = vecAt + rows * stride;
      new Int32Array(memory.buffer, idxAt, order.length).set(order);
      const outAt = idxAt + 64;
      dot(0, idxAt, order.length, vecAt, stride, outAt);
      const want = order.map((r) => {
        let s = 0;
        for (let j = 0; j < stride; j++) s += q[j]! * v[r * stride + j]!;
        return s;
      });
      expect([...new Int32Array(memory.buffer, outAt, order.length)]).toEqual(want);
    }
  });
});

describe("in-memory vector scan", () => {
  const dims = 40; // not a multiple of the kernel's 32: padding must not count

  test("ranks like exact cosine, with scores within 1e-4", () => {
    const scan = createVectorScan(dims)!;
    const rows = Array.from({ length: 3000 }, (_, i) => row({ vector: randomVector(dims) }, i));
    expect(scan.upsert(rows)).toBe(true);
    expect(scan.size).toBe(3000);
    let same = 0;
    for (let n = 0; n < 30; n++) {
      const q = randomVector(dims);
      const exact = rows.map((r) => ({ id: r.chunkId, s: cosine(q, r.vector) })).sort((a, b) => b.s - a.s).slice(0, 10);
      const got = scan.search(ORG_A, ["c1"], q, 10);
      expect(got.length).toBe(10);
      got.forEach((h) => expect(Math.abs(h.score - cosine(q, rows[Number(h.chunkId.slice(6))]!.vector))).toBeLessThan(1e-4));
      same += got.filter((h, i) => h.chunkId === exact[i]!.id).length;
    }
    expect(same).toBe(300);
  });

  test("a stored vector finds itself first, whatever its length", () => {
    const scan = createVectorScan(dims)!;
    const rows = Array.from({ length: 200 }, (_, i) => row({ vector: randomVector(dims).map((x) => x * (i + 1)) }, i));
    scan.upsert(rows);
    for (const r of rows.slice(0, 50)) {
      const [first] = scan.search(ORG_A, ["c1"], r.vector, 1);
      expect(first!.chunkId).toBe(r.chunkId);
      expect(first!.score).toBeCloseTo(1, 4);
    }
  });

  test("searches stay inside the organization and the asked corpora", () => {
    const scan = createVectorScan(dims)!;
    const v = randomVector(dims);
    scan.upsert([
      row({ orgId: ORG_A, corpusId: "c1", vector: v }, 1),
      row({ orgId: ORG_A, corpusId: "c2", vector: v }, 2),
      row({ orgId: ORG_B, corpusId: "c1", vector: v }, 3),
      row({ orgId: ORG_B, corpusId: "c1", vector: v, chunkId: "chunk-1" }, 4), // same chunk id, other organization
    ]);
    const ids = (org: string, corpora: string[]) => scan.search(org, corpora, v, 10).map((h) => [h.chunkId, h.corpusId]).sort();
    expect(ids(ORG_A, ["c1"])).toEqual([["chunk-1", "c1"]]);
    expect(ids(ORG_A, ["c1", "c2", "c1"])).toEqual([["chunk-1", "c1"], ["chunk-2", "c2"]]);
    expect(ids(ORG_B, ["c1"])).toEqual([["chunk-1", "c1"], ["chunk-3", "c1"]]);
    expect(ids(ORG_B, ["c2"])).toEqual([]);
    expect(ids("c0000000-0000-4000-8000-000000000000", ["c1"])).toEqual([]);
  });

  test("upsert replaces a chunk of the same organization; deletes by document, generation and chunk", () => {
    const scan = createVectorScan(dims)!;
    const vs = Array.from({ length: 30 }, () => randomVector(dims));
    scan.upsert(vs.map((vector, i) => row({ vector, generation: i < 10 ? 1 : 2 }, i))); // doc-0: gen 1, doc-1 and doc-2: gen 2
    const top = (q: Float32Array) => scan.search(ORG_A, ["c1"], q, 1)[0]?.chunkId;
    scan.upsert([row({ vector: vs[7]!, documentId: "doc-9" }, 3)]); // chunk-3 now carries chunk-7's vector
    expect(scan.size).toBe(30);
    expect(scan.search(ORG_A, ["c1"], vs[7]!, 2).map((h) => h.chunkId).sort()).toEqual(["chunk-3", "chunk-7"]);
    expect(top(vs[3]!)).not.toBe("chunk-3");

    scan.deleteDocument(ORG_B, "doc-1"); // other organization: nothing
    scan.deleteDocument(ORG_A, "doc-1", 1); // other generation: nothing
    expect(scan.size).toBe(30);
    scan.deleteDocument(ORG_A, "doc-1", 2);
    expect(scan.size).toBe(20);
    expect(top(vs[15]!)).not.toBe("chunk-15");
    scan.deleteDocument(ORG_A, "doc-0");
    expect(scan.size).toBe(11); // chunk-3 moved to doc-9
    scan.deleteChunks(ORG_A, ["chunk-3", "chunk-25", "unknown"]);
    expect(scan.size).toBe(9);
    const left = scan.search(ORG_A, ["c1"], vs[20]!, 100).map((h) => h.chunkId).sort();
    expect(left).toEqual(["chunk-20", "chunk-21", "chunk-22", "chunk-23", "chunk-24", "chunk-26", "chunk-27", "chunk-28", "chunk-29"]);

    // Freed slots are reused and the new rows are found.
    scan.upsert(vs.slice(0, 5).map((vector, i) => row({ vector, chunkId: `new-${i}` }, 100 + i)));
    expect(scan.size).toBe(14);
    expect(top(vs[4]!)).toBe("new-4");
  });

  test("growth keeps earlier rows intact", () => {
    const scan = createVectorScan(dims)!;
    const rows = Array.from({ length: 5000 }, (_, i) => row({ vector: randomVector(dims) }, i));
    for (let i = 0; i < rows.length; i += 700) scan.upsert(rows.slice(i, i + 700));
    for (const i of [0, 1023, 1024, 2500, 4999]) expect(scan.search(ORG_A, ["c1"], rows[i]!.vector, 1)[0]!.chunkId).toBe(`chunk-${i}`);
  });

  test("edge cases: zero query, limit above the rows, wrong width, memory cap", () => {
    const scan = createVectorScan(dims)!;
    scan.upsert([row({ vector: randomVector(dims) }, 1), row({ vector: new Float32Array(dims) }, 2)]);
    expect(scan.search(ORG_A, ["c1"], new Float32Array(dims), 5)).toEqual([]);
    const all = scan.search(ORG_A, ["c1"], randomVector(dims), 50);
    expect(all.map((h) => h.chunkId).sort()).toEqual(["chunk-1", "chunk-2"]);
    expect(all.find((h) => h.chunkId === "chunk-2")!.score).toBe(0);
    expect(scan.search(ORG_A, ["c1"], randomVector(dims), 0)).toEqual([]);
    expect(() => scan.upsert([row({ vector: randomVector(dims + 1) }, 3)])).toThrow("dimensions");

    // The cap counts everything the copy holds, not only the vectors: the 1,000 rows fit, 2,000 do not.
    const small = createVectorScan(dims, 400_000)!;
    expect(small.upsert(Array.from({ length: 1000 }, (_, i) => row({ vector: randomVector(dims) }, i)))).toBe(true);
    const held = small.bytes;
    expect(held).toBeLessThanOrEqual(400_000);
    expect(small.upsert(Array.from({ length: 1000 }, (_, i) => row({ vector: randomVector(dims) }, 5000 + i)))).toBe(false);
    expect({ size: small.size, bytes: small.bytes }).toEqual({ size: 1000, bytes: held });
  });
});
