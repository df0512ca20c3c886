/**
 * Arrow conversions of the chunk table (lance.ts): its schema, records → Arrow for writes, and
 * Arrow batches → columns for the in-memory vector copy.
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
import type { ScanColumns, Utf8Column } from "./vector-scan.ts";

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

/**
 * Encoded straight into the column's one buffer, its size counted first: encoding each value
 * apart and then copying the parts in held every text twice at once, which for the chunk texts
 * of a 50 MB document was about 50 MB more server memory at its peak (scripts/bench-server-memory.ts).
 */
function utf8Column(values: string[]): Data<Utf8> {
  const valueOffsets = new Int32Array(values.length + 1);
  let total = 0;
  // Bun's byteLength counts a lone surrogate as 2 bytes where the encoder writes U+FFFD (3): such a value is measured by encoding it.
  values.forEach((v, i) => (valueOffsets[i + 1] = total += v.isWellFormed() ? Buffer.byteLength(v, "utf8") : encoder.encode(v).byteLength));
  const data = new Uint8Array(total);
  values.forEach((v, i) => {
    const at = valueOffsets[i]!, end = valueOffsets[i + 1]!;
    const { read, written } = encoder.encodeInto(v, data.subarray(at, end));
    // A length counted wrong would shift every later value: refused rather than written.
    if (read !== v.length || written !== end - at) throw new Error(`utf8 length of a value miscounted (encoded ${read} of ${v.length} code units into ${written} of ${end - at} bytes)`);
  });
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

type ColumnData = { values?: unknown; valueOffsets?: unknown; children?: ColumnData[]; offset: number; length: number };
type Batch = { numRows: number; getChild(name: string): { data: readonly unknown[]; get(i: number): unknown } | null };

/**
 * One Arrow batch of the table as columns for the in-memory copy (VectorScan.load), reading
 * Arrow's own buffers: no string, array or object per row. LanceDB returns each column of a
 * batch as one chunk; anything else (several chunks, another layout) is copied out value by
 * value, which is slower but equal.
 *
 * Arrow slices a Utf8 column by slicing its offsets and keeping its bytes whole, and a fixed-width
 * column (Int32, the vectors' Float32 child) by slicing its values: in both, value i of a sliced
 * batch is found from index i, with no offset to add.
 */
export function scanColumns(batch: Batch, dims: number): ScanColumns {
  const n = batch.numRows;
  const col = (name: string) => {
    const c = batch.getChild(name);
    if (!c) throw new Error(`the table has no ${name} column`);
    return c;
  };
  const single = (name: string) => {
    const c = col(name);
    return c.data.length === 1 ? (c.data[0] as ColumnData) : undefined;
  };
  const utf8 = (name: string): Utf8Column => {
    const d = single(name);
    if (d && d.valueOffsets instanceof Int32Array && d.values instanceof Uint8Array && d.valueOffsets.length > n) {
      // Copied out of the batch's buffers (about 40 bytes a row): the copy read them 30–50×
      // slower in place, as views into the IPC message LanceDB hands over (measured on Bun 1.3.5,
      // scripts/bench-vector-load.ts; the vectors, views into the same message, read at full speed).
      const o = d.valueOffsets, from = o[0]!;
      const offsets = new Int32Array(n + 1);
      for (let i = 0; i <= n; i++) offsets[i] = o[i]! - from;
      return { offsets, bytes: d.values.slice(from, o[n]!) };
    }
    const parts = Array.from({ length: n }, (_, i) => encoder.encode(String(col(name).get(i))));
    const offsets = new Int32Array(n + 1);
    parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.byteLength));
    const bytes = new Uint8Array(offsets[n]!);
    parts.forEach((p, i) => bytes.set(p, offsets[i]!));
    return { offsets, bytes };
  };
  const gen = single("generation")?.values;
  const raw = single("vector")?.children?.[0]?.values;
  let vectors: Float32Array;
  if (raw instanceof Float32Array && raw.length >= n * dims) vectors = raw;
  else {
    const v = col("vector");
    vectors = new Float32Array(n * dims);
    for (let i = 0; i < n; i++) vectors.set(Float32Array.from(v.get(i) as Iterable<number>), i * dims);
  }
  return {
    rows: n,
    chunkId: utf8("chunkId"), orgId: utf8("orgId"), corpusId: utf8("corpusId"), documentId: utf8("documentId"),
    generation: gen instanceof Int32Array && gen.length >= n ? gen : Int32Array.from({ length: n }, (_, i) => Number(col("generation").get(i))),
    vectors,
  };
}
