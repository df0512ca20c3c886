import { expect, test } from "bun:test";
import { makeData, makeVector, FixedSizeList, Float32, Field, Int32, Table, vectorFromArray, Utf8 } from "apache-arrow";
import { scanColumns } from "../../src/store/lance-rows.ts";
import type { ScanColumns } from "../../src/store/vector-scan.ts";

// The in-memory vector copy reads its rows straight out of Arrow buffers. A batch can be a slice
// of a bigger one; Arrow then slices the vector column's child buffer and the strings' offsets
// (not their bytes), and an index that added the slice offset again paired chunk ids with other
// rows' vectors.
function batchOf(n: number, dims: number) {
  const flat = Float32Array.from({ length: n * dims }, (_, i) => i);
  const vector = makeVector(makeData({
    type: new FixedSizeList(dims, new Field("item", new Float32())), length: n, nullCount: 0,
    child: makeData({ type: new Float32(), length: n * dims, data: flat }),
  }));
  const str = (p: string) => vectorFromArray(Array.from({ length: n }, (_, i) => `${p}${i}${"é".repeat(i % 3)}`), new Utf8());
  const table = new Table({
    chunkId: str("c"), orgId: str("o"), corpusId: str("k"), documentId: str("d"),
    generation: vectorFromArray(Array.from({ length: n }, (_, i) => i), new Int32()), vector,
  });
  return table;
}

const decoder = new TextDecoder();
const rows = (c: ScanColumns, dims: number) =>
  Array.from({ length: c.rows }, (_, i) => {
    const s = (col: ScanColumns["chunkId"]) => decoder.decode(col.bytes.subarray(col.offsets[i]!, col.offsets[i + 1]!));
    return { id: s(c.chunkId), org: s(c.orgId), corpus: s(c.corpusId), doc: s(c.documentId), gen: c.generation[i], v: Array.from(c.vectors.subarray(i * dims, (i + 1) * dims)) };
  });

test("each row keeps its own ids and vector, in a whole batch and in a sliced one", () => {
  const dims = 4;
  const whole = batchOf(6, dims);
  const read = (t: Table) => rows(scanColumns(t.batches[0]! as never, dims), dims);
  const expected = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, k) => {
      const i = from + k, tail = "é".repeat(i % 3);
      return { id: `c${i}${tail}`, org: `o${i}${tail}`, corpus: `k${i}${tail}`, doc: `d${i}${tail}`, gen: i, v: [0, 1, 2, 3].map((j) => i * dims + j) };
    });
  expect(read(whole)).toEqual(expected(0, 6));
  expect(read(whole.slice(2, 5))).toEqual(expected(2, 5));
});

test("a column in several chunks is read value by value, to the same columns", () => {
  const dims = 4;
  const a = batchOf(3, dims), b = batchOf(5, dims);
  const joined = a.concat(b);
  const batch = { numRows: 8, getChild: (name: string) => joined.getChild(name as never) };
  expect(rows(scanColumns(batch as never, dims), dims)).toEqual([
    ...rows(scanColumns(a.batches[0]! as never, dims), dims), ...rows(scanColumns(b.batches[0]! as never, dims), dims),
  ]);
});
