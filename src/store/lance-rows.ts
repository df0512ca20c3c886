/**
 * Arrow conversions of the chunk table (lance.ts): its schema, records → Arrow for writes, and
 * Arrow batches → rows for the in-memory vector copy.
 *
 * Writes build the Arrow columns directly: the vectors of a write become one Float32Array under
 * a fixed-size list, strings one UTF-8 buffer each. Handing LanceDB plain objects instead made
 * it infer and convert every row in JavaScript (`Array.from` of each vector, then element by
 * element into Arrow builders), which cost more server CPU than the Lance commit itself.
 */
import {
  Field, FixedSizeList, Float32, Int32, makeData, RecordBatch, Schema, Struct, Table, Utf8, type Data,
} from "apache-arrow";
import type { VectorRecord } from "./vector.ts";
import type { ScanRow } from "./vector-scan.ts";

export function chunkSchema(dims: number): Schema {
  return new Schema([
    new Field("chunkId", new Utf8(), false),
    new Field("orgId", new Utf8(), false),
    new Field("corpusId", new Utf8(), false),
    new Field("documentId", new Utf8(), false),
    new Field("generation", new Int32(), false),
    new Field("text", new Utf8(), false),
    new Field("vector", new FixedSizeList(dims, new Field("item", new Float32(), true)), false),
  ]);
}

const encoder = new TextEncoder();

function utf8Column(values: string[]): Data<Utf8> {
  const parts = values.map((v) => encoder.encode(v));
  const valueOffsets = new Int32Array(values.length + 1);
  let total = 0;
  parts.forEach((p, i) => (valueOffsets[i + 1] = total += p.byteLength));
  const data = new Uint8Array(total);
  parts.forEach((p, i) => data.set(p, valueOffsets[i]!));
  return makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets, data });
}

/** The records as one Arrow table of the chunk schema; throws on a vector of another width. */
export function toArrowTable(records: VectorRecord[], dims: number, tableName: string): Table {
  const schema = chunkSchema(dims);
  const n = records.length;
  const flat = new Float32Array(n * dims);
  records.forEach((r, i) => {
    if (r.vector.length !== dims) throw new Error(`vector has ${r.vector.length} dimensions, table ${tableName} has ${dims}`);
    flat.set(r.vector, i * dims);
  });
  const vectorType = schema.fields[6]!.type as FixedSizeList<Float32>;
  const items = makeData({ type: new Float32(), length: n * dims, nullCount: 0, data: flat });
  const children = [
    utf8Column(records.map((r) => r.chunkId)),
    utf8Column(records.map((r) => r.orgId)),
    utf8Column(records.map((r) => r.corpusId)),
    utf8Column(records.map((r) => r.documentId)),
    makeData({ type: new Int32(), length: n, nullCount: 0, data: Int32Array.from(records, (r) => r.generation) }),
    utf8Column(records.map((r) => r.text)),
    makeData({ type: vectorType, length: n, nullCount: 0, child: items }),
  ];
  const struct = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return new Table(schema, [new RecordBatch(schema, struct)]);
}

/** The rows of one Arrow batch of the table for the in-memory copy; vectors are views, not copies. */
export function scanRows(batch: { numRows: number; getChild(name: string): { get(i: number): unknown; data: readonly unknown[] } | null }, dims: number): ScanRow[] {
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
