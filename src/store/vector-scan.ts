/**
 * An in-memory copy of one vector table, searched by a full scan of int8-quantised vectors with
 * the SIMD kernel of simd-dot.ts. LanceDB stays the source of truth: store/lance.ts fills this
 * copy from the table and applies every successful write of the table to it, in the table's
 * write queue, and searches here only while the copy is complete.
 *
 * Why a scan: the built-in hashing embedder's vectors hardly cluster, so LanceDB's IVF indexes
 * must probe ~90 % of their partitions to keep recall, and the scan of 100,000 × 384 int8 values
 * takes a few milliseconds instead of ~35 ms. Quantisation is the only approximation: each stored
 * vector is scaled to its own largest component (127) and the query to 16 bits, so the scan's
 * cosine scores are off by up to ~2e-3 (measured), enough to swap near-ties. The best
 * 2 × limit + 16 rows are therefore ranked again with each value's rounding residual (kept as
 * int8 in 1/254 steps outside the kernel's memory): scores within ~1e-5, and recall@10 against
 * exact search was 1.000 at 100,000 chunks.
 *
 * Memory: 2 bytes per dimension and row (half of float32) plus about 90 bytes of bookkeeping per
 * row, all in typed arrays: ids as 16-byte words (id-table.ts), organizations, corpora and
 * documents as small integers, each document's rows as a linked list through per-row arrays. The
 * previous version held per-row strings and Maps keyed by "org/id" strings, about 3.3 KB per row
 * all told at 384 dimensions (scripts/bench-vector-copy.ts compares both).
 *
 * Rows are grouped by organization and corpus: a search reads the rows of the asked corpora of
 * the asked organization and no other.
 */
import type { VectorHit } from "./vector.ts";
import { dotKernel, type DotKernel } from "./simd-dot.ts";
import { best, fineDot, I8_MAX, norm2, quantize, quantizeRow } from "./quantize.ts";
import { IdTable, idStringCost } from "./id-table.ts";

export interface ScanRow {
  chunkId: string;
  orgId: string;
  corpusId: string;
  documentId: string;
  generation: number;
  vector: ArrayLike<number>;
}

/** A column of strings in Arrow's Utf8 layout: value i is the UTF-8 bytes[offsets[i] … offsets[i + 1]). */
export interface Utf8Column {
  offsets: Int32Array;
  bytes: Uint8Array;
}

/** Rows as columns, the way store/lance.ts reads them out of a batch of its table. */
export interface ScanColumns {
  rows: number;
  chunkId: Utf8Column;
  orgId: Utf8Column;
  corpusId: Utf8Column;
  documentId: Utf8Column;
  generation: Int32Array;
  /** rows × dims values, row after row. */
  vectors: Float32Array;
}

export interface VectorScan {
  /** Rows held. */
  readonly size: number;
  /** Bytes held: every typed array and the kernel's memory at their capacity, plus an estimate of the few objects (organizations, corpora, ids that are not UUIDs). */
  readonly bytes: number;
  /** Adds rows; a row whose (organization, chunk) is held replaces it. False: over maxBytes, nothing added. */
  upsert(rows: ScanRow[]): boolean;
  /**
   * upsert() of the same rows, with the same outcome and the same copy after it, read from
   * columns without making a string or an object per row: the load from the table.
   */
  load(columns: ScanColumns): boolean;
  /** The document's rows (of one generation when given). */
  deleteDocument(orgId: string, documentId: string, generation?: number): void;
  /** Whether the copy holds any row of the document (of the chunk): the table's writes skip deletes that would match nothing. */
  hasDocument(orgId: string, documentId: string): boolean;
  hasChunk(orgId: string, chunkId: string): boolean;
  deleteChunks(orgId: string, chunkIds: string[]): void;
  /** Best `limit` rows by cosine similarity, best first; score = cosine (approximately). */
  search(orgId: string, corpusIds: string[], vector: ArrayLike<number>, limit: number): VectorHit[];
}

/** Above this many bytes held (see VectorScan.bytes; about 1.25 million rows of 384 dimensions) the copy gives up. */
export const SCAN_MAX_BYTES = 1 << 30;
const PAGE = 65536;
/** The scan ranks this many candidates beyond 2 × limit again on the finer values. */
const RERANK_EXTRA = 16;
/** Bytes per row of the per-row Int32/Float32 arrays below (scale, gen, pos, groupOf, docOf, docNext, docPrev). */
const ROW_ARRAYS = 7 * 4;
/** Estimated bytes of an organization's or a corpus's objects, for the cap. */
const OBJECT_COST = 300;

const decoder = new TextDecoder();
const text = (c: Utf8Column, i: number) => decoder.decode(c.bytes.subarray(c.offsets[i]!, c.offsets[i + 1]!));
const byteLength = (c: Utf8Column, i: number) => c.offsets[i + 1]! - c.offsets[i]!;
/** Whether values i and j of the column are the same string. */
function sameText(c: Utf8Column, i: number, j: number): boolean {
  const a = c.offsets[i]!, b = c.offsets[j]!, n = c.offsets[i + 1]! - a;
  if (c.offsets[j + 1]! - b !== n) return false;
  const x = c.bytes;
  for (let k = 0; k < n; k++) if (x[a + k] !== x[b + k]) return false;
  return true;
}

interface Group { org: Org; corpusId: string; index: number; slots: Int32Array; n: number }
interface Org { id: string; index: number; rows: number; groups: Map<string, Group> }

/**
 * undefined where WebAssembly SIMD is unavailable: the caller searches LanceDB instead.
 * `expectedRows`: room to make at once (the table's row count when loading it), so a loaded copy
 * holds no spare room beyond a little headroom; later growth is by half the capacity.
 */
export function createVectorScan(dims: number, maxBytes = SCAN_MAX_BYTES, expectedRows = 0): VectorScan | undefined {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const dot: DotKernel | undefined = dotKernel(memory);
  if (!dot || dims <= 0) return undefined;
  // The kernel reads 32 dimensions per turn; padding dimensions are zero on both sides.
  const stride = Math.ceil(dims / 32) * 32;
  // Largest query value such that Σ |q|·127 over the stride fits an i32: no overflow is possible.
  const qMax = Math.min(32767, Math.floor(0x7fffffff / (I8_MAX * stride)));
  const base = Math.ceil((stride * 2) / 64) * 64; // the query (int16) sits at 0, vectors from here

  // Slots: a row's place in every per-row array. Freed ones are chained through docNext and reused first.
  let cap = 0;
  let top = 0;
  let freeSlot = -1;
  let freeSlots = 0;
  let scale = new Float32Array(0);
  let fine = new Int8Array(0); // per slot, dims residuals of the int8 values (outside the kernel's memory)
  let gen = new Int32Array(0);
  let pos = new Int32Array(0); // index in its group's slot list
  let groupOf = new Int32Array(0);
  let docOf = new Int32Array(0);
  let docNext = new Int32Array(0); // the document's next row; for a free slot, the next free slot
  let docPrev = new Int32Array(0);
  const chunks = new IdTable(); // (organization, chunk) → slot

  // Documents: records of (organization, document); free ones are chained through docHead.
  let docCap = 0;
  let docTop = 0;
  let freeDoc = -1;
  let freeDocs = 0;
  let docHead = new Int32Array(0); // first row, -1 for none
  const docs = new IdTable();

  const orgs = new Map<string, Org>();
  const orgFree: number[] = [];
  const groupList: (Group | undefined)[] = [];
  const groupFree: number[] = [];
  let groupCount = 0;
  let listBytes = 0; // the groups' slot lists
  let size = 0;

  // Views of the memory, made again when it grows (growing detaches the old buffer).
  let bytes = new Int8Array(memory.buffer);
  let words = new Int32Array(memory.buffer);
  let query = new Int16Array(memory.buffer, 0, stride);
  /** Memory for `cap` vectors plus the scan's index and score lists after them. */
  const ensureMemory = () => {
    const need = base + cap * stride + cap * 8;
    if (need <= memory.buffer.byteLength) return;
    memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
    bytes = new Int8Array(memory.buffer);
    words = new Int32Array(memory.buffer);
    query = new Int16Array(memory.buffer, 0, stride);
  };
  const objects = () => (orgs.size + groupCount) * OBJECT_COST + listBytes;
  const bytesAt = (slots: number, records: number) =>
    Math.ceil((base + slots * (stride + 8)) / PAGE) * PAGE + slots * (dims + ROW_ARRAYS) + chunks.bytesAt(slots) +
    records * 4 + docs.bytesAt(records) + objects();
  /**
   * Room for `slots` rows and `records` documents within maxBytes. Growing by half copies the
   * arrays about three times over a fill from empty, and leaves at most a third of them spare.
   */
  const grow = (slots: number, records: number, extra: number): boolean => {
    const needS = Math.max(slots, cap), needD = Math.max(records, docCap);
    let s = slots > cap ? Math.max(slots, cap + (cap >>> 1), 1024) : cap;
    let d = records > docCap ? Math.max(records, docCap + (docCap >>> 1), 256) : docCap;
    while (bytesAt(s, d) + extra > maxBytes) {
      if (s === needS && d === needD) return false;
      s = (s + needS) >>> 1;
      d = (d + needD) >>> 1;
    }
    if (s === cap && d === docCap) return true;
    const widen = <T extends Float32Array | Int32Array | Int8Array>(a: T, n: number, make: (n: number) => T): T => {
      if (a.length >= n) return a;
      const b = make(n);
      b.set(a);
      return b;
    };
    const ints = (n: number) => new Int32Array(n);
    scale = widen(scale, s, (n) => new Float32Array(n));
    fine = widen(fine, s * dims, (n) => new Int8Array(n));
    [gen, pos, groupOf, docOf, docNext, docPrev] = [gen, pos, groupOf, docOf, docNext, docPrev].map((a) => widen(a, s, ints));
    docHead = widen(docHead, d, ints);
    chunks.resize(s);
    docs.resize(d);
    cap = s;
    docCap = d;
    ensureMemory();
    return true;
  };

  const orgFor = (id: string): Org => {
    let o = orgs.get(id);
    if (!o) orgs.set(id, (o = { id, index: orgFree.length ? orgFree.pop()! : orgs.size, rows: 0, groups: new Map() }));
    return o;
  };
  const groupFor = (o: Org, corpusId: string): Group => {
    let g = o.groups.get(corpusId);
    if (g) return g;
    const index = groupFree.length ? groupFree.pop()! : groupList.length;
    g = { org: o, corpusId, index, slots: new Int32Array(16), n: 0 };
    o.groups.set(corpusId, g);
    groupList[index] = g;
    groupCount++;
    listBytes += g.slots.byteLength;
    return g;
  };

  const remove = (slot: number) => {
    const g = groupList[groupOf[slot]!]!;
    const o = g.org;
    const last = g.slots[--g.n]!;
    g.slots[pos[slot]!] = last;
    pos[last] = pos[slot]!;
    if (!g.n) {
      o.groups.delete(g.corpusId);
      groupList[g.index] = undefined;
      groupFree.push(g.index);
      groupCount--;
      listBytes -= g.slots.byteLength;
    }
    chunks.remove(slot);
    const d = docOf[slot]!, prev = docPrev[slot]!, next = docNext[slot]!;
    if (prev >= 0) docNext[prev] = next;
    else docHead[d] = next;
    if (next >= 0) docPrev[next] = prev;
    if (docHead[d]! < 0) {
      docs.remove(d);
      docHead[d] = freeDoc;
      freeDoc = d;
      freeDocs++;
    }
    if (!--o.rows) {
      orgs.delete(o.id);
      orgFree.push(o.index);
    }
    docNext[slot] = freeSlot;
    freeSlot = slot;
    freeSlots++;
    size--;
  };

  const takeSlot = (): number => {
    const slot = freeSlot;
    if (slot < 0) return top++;
    freeSlot = docNext[slot]!;
    freeSlots--;
    return slot;
  };
  /** A free document record, its key still to be inserted in `docs`. */
  const takeDoc = (): number => {
    let d = freeDoc;
    if (d >= 0) {
      freeDoc = docHead[d]!;
      freeDocs--;
    } else d = docTop++;
    docHead[d] = -1;
    return d;
  };
  /** Fills a taken slot whose chunk key `chunks` already holds: vector v[from…], document record d, group g. */
  const place = (slot: number, o: Org, g: Group, d: number, generation: number, v: ArrayLike<number>, from: number) => {
    o.rows++;
    scale[slot] = quantizeRow(v, dims, bytes, base + slot * stride, fine, slot * dims, from);
    bytes.fill(0, base + slot * stride + dims, base + (slot + 1) * stride);
    gen[slot] = generation;
    docOf[slot] = d;
    docPrev[slot] = -1;
    docNext[slot] = docHead[d]!;
    if (docHead[d]! >= 0) docPrev[docHead[d]!] = slot;
    docHead[d] = slot;
    if (g.n === g.slots.length) {
      const wider = new Int32Array(g.slots.length * 2);
      wider.set(g.slots);
      listBytes += wider.byteLength - g.slots.byteLength;
      g.slots = wider;
    }
    pos[slot] = g.n;
    g.slots[g.n++] = slot;
    groupOf[slot] = g.index;
    size++;
  };

  const put = (r: ScanRow) => {
    const slot = takeSlot();
    const o = orgFor(r.orgId);
    chunks.insert(slot, o.index, r.chunkId);
    let d = docs.find(o.index, r.documentId);
    if (d < 0) docs.insert((d = takeDoc()), o.index, r.documentId);
    place(slot, o, groupFor(o, r.corpusId), d, r.generation, r.vector, 0);
  };

  const upsert = (rows: ScanRow[]): boolean => {
    for (const r of rows) if (r.vector.length !== dims) throw new Error(`vector has ${r.vector.length} dimensions, scan has ${dims}`);
    // Room first, so a refusal changes nothing. A new document is counted once per run of its
    // rows: at least once, and rows of a document arrive together.
    let fresh = 0, freshDocs = 0, extra = 0;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!, o = orgs.get(r.orgId);
      if (!o || chunks.find(o.index, r.chunkId) < 0) {
        fresh++;
        extra += o ? chunks.extraForFound(r.chunkId) : chunks.extraFor(r.chunkId);
      }
      const p = rows[i - 1];
      if (p && p.documentId === r.documentId && p.orgId === r.orgId) continue;
      if (!o || docs.find(o.index, r.documentId) < 0) {
        freshDocs++;
        extra += o ? docs.extraForFound(r.documentId) : docs.extraFor(r.documentId);
      }
    }
    // The corpora's row lists double outside grow(): 8 bytes per new row is their share. A list
    // doubling can still pass the cap by what that list held, at most a few MB near it.
    extra += fresh * 8;
    if (!grow(top + Math.max(0, fresh - freeSlots), docTop + Math.max(0, freshDocs - freeDocs), extra)) return false;
    for (const r of rows) {
      const o = orgs.get(r.orgId);
      const old = o ? chunks.find(o.index, r.chunkId) : -1;
      if (old >= 0) remove(old);
      put(r);
    }
    return true;
  };

  const load = (c: ScanColumns): boolean => {
    const n = c.rows;
    if (c.vectors.length < n * dims) throw new Error(`${c.vectors.length} vector values for ${n} rows of ${dims} dimensions`);
    // upsert()'s room check, bounded instead of looked up: every row new, every run of a
    // document's rows a new document, every id kept as a string (its UTF-16 length is at most
    // its UTF-8 length). When that fits without growing, upsert() would neither grow nor refuse
    // either; otherwise (the copy must grow, or is near its cap) upsert() itself takes the
    // batch and decides exactly. A copy sized for its table takes the first path throughout.
    let runs = 0, extra = n * 8;
    for (let i = 0; i < n; i++) {
      extra += idStringCost(byteLength(c.chunkId, i));
      if (i > 0 && sameText(c.documentId, i, i - 1) && sameText(c.orgId, i, i - 1)) continue;
      runs++;
      extra += idStringCost(byteLength(c.documentId, i));
    }
    if (top + n > cap || docTop + runs > docCap || bytesAt(cap, docCap) + extra > maxBytes) return upsert(rowsOf(c, dims));
    // The organization, corpus and document of the row before, reused while the bytes repeat
    // (a document's rows are stored together); a removal may free any of them, so it drops them.
    let o: Org | undefined, g: Group | undefined, d = -1, corpusId = "";
    const ids = c.chunkId;
    for (let i = 0; i < n; i++) {
      if (!o || !sameText(c.orgId, i, i - 1)) {
        o = orgFor(text(c.orgId, i));
        g = undefined;
        d = -1;
      }
      const old = chunks.findBytes(o.index, ids.bytes, ids.offsets[i]!, ids.offsets[i + 1]!);
      if (old >= 0) {
        remove(old);
        o = orgFor(o.id); // it may have been the organization's last row; insertFound() probes again
        g = undefined;
        d = -1;
      }
      if (!g || !sameText(c.corpusId, i, i - 1)) {
        if (i === 0 || !sameText(c.corpusId, i, i - 1)) corpusId = text(c.corpusId, i);
        g = groupFor(o, corpusId);
      }
      if (d < 0 || !sameText(c.documentId, i, i - 1)) {
        const docIds = c.documentId;
        d = docs.findBytes(o.index, docIds.bytes, docIds.offsets[i]!, docIds.offsets[i + 1]!);
        if (d < 0) docs.insertFound((d = takeDoc()), o.index);
      }
      const slot = takeSlot();
      chunks.insertFound(slot, o.index);
      place(slot, o, g, d, c.generation[i]!, c.vectors, i * dims);
    }
    return true;
  };

  if (expectedRows > 0) {
    // A document per row is the most there can be; most have many rows, so start with a tenth.
    const rows = expectedRows + (expectedRows >>> 6);
    grow(rows, Math.ceil(rows / 10), 0);
  }

  return {
    get size() {
      return size;
    },
    get bytes() {
      return memory.buffer.byteLength + fine.byteLength + cap * ROW_ARRAYS + chunks.bytes + docHead.byteLength + docs.bytes + objects();
    },
    upsert,
    load,
    deleteDocument(orgId, documentId, generation) {
      const o = orgs.get(orgId);
      const d = o ? docs.find(o.index, documentId) : -1;
      // A removal never touches the rows after it in the list; the last one frees the record.
      for (let slot = d >= 0 ? docHead[d]! : -1; slot >= 0; ) {
        const next = docNext[slot]!;
        if (generation === undefined || gen[slot] === generation) remove(slot);
        slot = next;
      }
    },
    hasDocument(orgId, documentId) {
      const o = orgs.get(orgId);
      return !!o && docs.find(o.index, documentId) >= 0;
    },
    hasChunk(orgId, chunkId) {
      const o = orgs.get(orgId);
      return !!o && chunks.find(o.index, chunkId) >= 0;
    },
    deleteChunks(orgId, chunkIds) {
      for (const id of chunkIds) {
        const o = orgs.get(orgId);
        const slot = o ? chunks.find(o.index, id) : -1;
        if (slot >= 0) remove(slot);
      }
    },
    search(orgId, corpusIds, vector, limit) {
      const o = orgs.get(orgId);
      if (!o) return [];
      const gs = [...new Set(corpusIds)].flatMap((c) => o.groups.get(c) ?? []);
      const n = gs.reduce((s, g) => s + g.n, 0);
      if (!n || limit <= 0) return [];
      if (!quantize(vector, dims, qMax, query, 0)) return []; // a zero vector has no direction to rank by
      query.fill(0, dims);
      // Word offsets of the slot list and of the scores, after the vectors.
      const idxAt = (base + cap * stride) >> 2;
      let at = idxAt;
      for (const g of gs) {
        words.set(g.slots.subarray(0, g.n), at);
        at += g.n;
      }
      const outAt = idxAt + n;
      dot(0, idxAt * 4, n, base, stride, outAt * 4);
      // The int8 scores can swap near-ties; the best few are ranked again with the residuals.
      const cands = best(words, idxAt, outAt, n, scale, Math.min(n, 2 * limit + RERANK_EXTRA));
      const inv = 1 / Math.sqrt(norm2(vector, dims));
      const unit = Float64Array.from({ length: dims }, (_, i) => vector[i]! * inv);
      const rescored = [...cands].map((slot) => ({ slot, score: scale[slot]! * fineDot(unit, bytes, base + slot * stride, fine, slot * dims, dims) }));
      rescored.sort((x, y) => y.score - x.score);
      return rescored.slice(0, limit).map(({ slot, score }) => ({
        chunkId: chunks.idOf(slot), documentId: docs.idOf(docOf[slot]!), corpusId: groupList[groupOf[slot]!]!.corpusId, score,
      }));
    },
  };
}

/** The columns as rows, for upsert(). */
function rowsOf(c: ScanColumns, dims: number): ScanRow[] {
  return Array.from({ length: c.rows }, (_, i) => ({
    chunkId: text(c.chunkId, i), orgId: text(c.orgId, i), corpusId: text(c.corpusId, i), documentId: text(c.documentId, i),
    generation: c.generation[i]!, vector: c.vectors.subarray(i * dims, (i + 1) * dims),
  }));
}
