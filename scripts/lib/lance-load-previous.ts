// The load of the in-memory vector copy before it read Arrow's buffers directly (kept for
// scripts/bench-vector-load.ts): every batch turned into rows (five strings and a vector view
// each), then upsert().
import type * as lancedb from "@lancedb/lancedb";
import { createVectorScan, SCAN_MAX_BYTES, type ScanRow, type VectorScan } from "../../src/store/vector-scan.ts";

export async function loadVectorCopyPrevious(table: lancedb.Table, dims: number): Promise<VectorScan | undefined> {
  const copy = createVectorScan(dims, SCAN_MAX_BYTES, await table.countRows());
  if (!copy) return undefined;
  for await (const batch of table.query().select(["chunkId", "orgId", "corpusId", "documentId", "generation", "vector"])) {
    if (!copy.upsert(scanRows(batch, dims))) return undefined;
  }
  return copy;
}

/** The rows of one Arrow batch of the table for the in-memory copy; vectors are views, not copies. */
function scanRows(batch: { numRows: number; getChild(name: string): { get(i: number): unknown; data: readonly unknown[] } | null }, dims: number): ScanRow[] {
  const col = (name: string) => batch.getChild(name)!;
  const [chunk, org, corpus, doc, gen, vec] = ["chunkId", "orgId", "corpusId", "documentId", "generation", "vector"].map(col) as ReturnType<typeof col>[];
  // One contiguous Float32 child (what LanceDB returns). Arrow slices a fixed-size list's child
  // together with its buffer (values already start at the slice; `offset` is bookkeeping), so
  // row i is values[i × dims …] whether or not the batch is a slice.
  const data = vec!.data.length === 1 ? (vec!.data[0] as { children: { values: unknown }[] }) : undefined;
  const raw = data?.children[0]?.values;
  const values = raw instanceof Float32Array && raw.length >= batch.numRows * dims ? raw : undefined;
  const out: ScanRow[] = [];
  for (let i = 0; i < batch.numRows; i++) {
    const at = i * dims;
    out.push({
      chunkId: String(chunk!.get(i)), orgId: String(org!.get(i)), corpusId: String(corpus!.get(i)),
      documentId: String(doc!.get(i)), generation: Number(gen!.get(i)),
      vector: values ? values.subarray(at, at + dims) : Float32Array.from(vec!.get(i) as Iterable<number>),
    });
  }
  return out;
}
