import { expect, test } from "bun:test";
import { tableFromArrays, makeData, makeVector, FixedSizeList, Float32, Field, Int32, Table, vectorFromArray, Utf8 } from "apache-arrow";
import { scanRows } from "../../src/store/lance-rows.ts";

// The in-memory vector copy reads vectors straight out of Arrow buffers. A batch can be a slice
// of a bigger one; Arrow then slices the vector column's child buffer too, and an index that
// added the slice offset again paired chunk ids with other rows' vectors.
function batchOf(n: number, dims: number) {
  const flat = Float32Array.from({ length: n * dims }, (_, i) => i);
  const vector = makeVector(makeData({
    type: new FixedSizeList(dims, new Field("item", new Float32())), length: n, nullCount: 0,
    child: makeData({ type: new Float32(), length: n * dims, data: flat }),
  }));
  const str = (p: string) => vectorFromArray(Array.from({ length: n }, (_, i) => `${p}${i}`), new Utf8());
  const table = new Table({
    chunkId: str("c"), orgId: str("o"), corpusId: str("k"), documentId: str("d"),
    generation: vectorFromArray(Array.from({ length: n }, (_, i) => i), new Int32()), vector,
  });
  return table;
}

test("each row keeps its own vector, in a whole batch and in a sliced one", () => {
  const dims = 4;
  const whole = batchOf(6, dims);
  const rows = (t: Table) => scanRows(t.batches[0]! as never, dims).map((r) => ({ id: r.chunkId, gen: r.generation, v: Array.from(r.vector) }));
  const expected = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, k) => {
      const i = from + k;
      return { id: `c${i}`, gen: i, v: [0, 1, 2, 3].map((j) => i * dims + j) };
    });
  expect(rows(whole)).toEqual(expected(0, 6));
  expect(rows(whole.slice(2, 5))).toEqual(expected(2, 5));
});
