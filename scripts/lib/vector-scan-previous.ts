// The in-memory vector copy as it was before ids moved into typed arrays (src/store/vector-scan.ts
// at beced96, imports adjusted): per-row strings, Maps keyed by "org/id" strings, a Set per
// document. Kept only as the baseline of scripts/bench-vector-copy.ts.
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
 * exact search was 1.000 at 100,000 chunks. Memory: 2 bytes per dimension and row, half of float32.
 *
 * Rows are grouped by organization and corpus: a search reads the rows of the asked corpora of
 * the asked organization and no other.
 */
import type { VectorHit } from "../../src/store/vector.ts";
import { dotKernel, type DotKernel } from "../../src/store/simd-dot.ts";
import { best, fineDot, I8_MAX, norm2, quantize, quantizeRow } from "../../src/store/quantize.ts";

export interface ScanRow {
  chunkId: string;
  orgId: string;
  corpusId: string;
  documentId: string;
  generation: number;
  vector: ArrayLike<number>;
}

export interface VectorScan {
  /** Rows held. */
  readonly size: number;
  /** Adds rows; a row whose (organization, chunk) is held replaces it. False: over maxBytes, nothing added. */
  upsert(rows: ScanRow[]): boolean;
  /** The document's rows (of one generation when given). */
  deleteDocument(orgId: string, documentId: string, generation?: number): void;
  /** Whether the copy holds any row of the document (of the chunk): the table's writes skip deletes that would match nothing. */
  hasDocument(orgId: string, documentId: string): boolean;
  hasChunk(orgId: string, chunkId: string): boolean;
  deleteChunks(orgId: string, chunkIds: string[]): void;
  /** Best `limit` rows by cosine similarity, best first; score = cosine (approximately). */
  search(orgId: string, corpusIds: string[], vector: ArrayLike<number>, limit: number): VectorHit[];
}

/** Above this many bytes of vectors and residuals (about 1.4 million rows of 384 dimensions) the copy gives up. */
export const SCAN_MAX_BYTES = 1 << 30;
const PAGE = 65536;
/** The scan ranks this many candidates beyond 2 × limit again on the finer values. */
const RERANK_EXTRA = 16;

interface Group { key: string; corpusId: string; slots: Int32Array; n: number }

/** undefined where WebAssembly SIMD is unavailable: the caller searches LanceDB instead. */
export function createVectorScan(dims: number, maxBytes = SCAN_MAX_BYTES): VectorScan | undefined {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const dot: DotKernel | undefined = dotKernel(memory);
  if (!dot || dims <= 0) return undefined;
  // The kernel reads 32 dimensions per turn; padding dimensions are zero on both sides.
  const stride = Math.ceil(dims / 32) * 32;
  // Largest query value such that Σ |q|·127 over the stride fits an i32: no overflow is possible.
  const qMax = Math.min(32767, Math.floor(0x7fffffff / (I8_MAX * stride)));
  const base = Math.ceil((stride * 2) / 64) * 64; // the query (int16) sits at 0, vectors from here

  let cap = 0;
  let top = 0; // slots ever used; freed ones are reused first
  const free: number[] = [];
  let scale = new Float32Array(0);
  let fine = new Int8Array(0); // per slot, dims residuals of the int8 values (outside the kernel's memory)
  let gen = new Int32Array(0);
  let pos = new Int32Array(0);
  const orgOf: string[] = [];
  const chunkOf: string[] = [];
  const docOf: string[] = [];
  const groupOf: (Group | undefined)[] = [];
  const key = (orgId: string, id: string) => orgId + "/" + id;
  const byChunk = new Map<string, number>(); // key(org, chunk) → slot
  const byDoc = new Map<string, Set<number>>(); // key(org, document) → slots
  const groups = new Map<string, Group>(); // key(org, corpus) → slots
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
  const grow = (want: number): boolean => {
    if (want <= cap) return true;
    const most = Math.floor(maxBytes / (stride + dims));
    if (want > most) return false;
    const next = Math.min(most, Math.max(want, cap * 2, 1024));
    const widen = <T extends Float32Array | Int32Array | Int8Array>(a: T, make: (n: number) => T): T => {
      const b = make(next);
      b.set(a);
      return b;
    };
    scale = widen(scale, (n) => new Float32Array(n));
    fine = widen(fine, (n) => new Int8Array(n * dims));
    gen = widen(gen, (n) => new Int32Array(n));
    pos = widen(pos, (n) => new Int32Array(n));
    cap = next;
    ensureMemory();
    return true;
  };

  const remove = (slot: number) => {
    const g = groupOf[slot]!;
    const last = g.slots[--g.n]!;
    g.slots[pos[slot]!] = last;
    pos[last] = pos[slot]!;
    if (!g.n) groups.delete(g.key);
    byChunk.delete(key(orgOf[slot]!, chunkOf[slot]!));
    const docKey = key(orgOf[slot]!, docOf[slot]!);
    const set = byDoc.get(docKey)!;
    set.delete(slot);
    if (!set.size) byDoc.delete(docKey);
    groupOf[slot] = undefined;
    free.push(slot);
    size--;
  };

  const put = (r: ScanRow, slot: number) => {
    scale[slot] = quantizeRow(r.vector, dims, bytes, base + slot * stride, fine, slot * dims);
    bytes.fill(0, base + slot * stride + dims, base + (slot + 1) * stride);
    gen[slot] = r.generation;
    orgOf[slot] = r.orgId;
    chunkOf[slot] = r.chunkId;
    docOf[slot] = r.documentId;
    const docKey = key(r.orgId, r.documentId);
    let set = byDoc.get(docKey);
    if (!set) byDoc.set(docKey, (set = new Set()));
    set.add(slot);
    const gKey = key(r.orgId, r.corpusId);
    let g = groups.get(gKey);
    if (!g) groups.set(gKey, (g = { key: gKey, corpusId: r.corpusId, slots: new Int32Array(16), n: 0 }));
    if (g.n === g.slots.length) {
      const wider = new Int32Array(g.slots.length * 2);
      wider.set(g.slots);
      g.slots = wider;
    }
    pos[slot] = g.n;
    g.slots[g.n++] = slot;
    groupOf[slot] = g;
    byChunk.set(key(r.orgId, r.chunkId), slot);
    size++;
  };

  return {
    get size() {
      return size;
    },
    upsert(rows) {
      for (const r of rows) if (r.vector.length !== dims) throw new Error(`vector has ${r.vector.length} dimensions, scan has ${dims}`);
      const fresh = rows.filter((r) => !byChunk.has(key(r.orgId, r.chunkId))).length;
      if (!grow(top + Math.max(0, fresh - free.length))) return false;
      for (const r of rows) {
        const old = byChunk.get(key(r.orgId, r.chunkId));
        if (old !== undefined) remove(old);
        put(r, free.length ? free.pop()! : top++);
      }
      return true;
    },
    deleteDocument(orgId, documentId, generation) {
      const set = byDoc.get(key(orgId, documentId));
      if (!set) return;
      for (const slot of [...set]) if (generation === undefined || gen[slot] === generation) remove(slot);
    },
    hasDocument: (orgId, documentId) => byDoc.has(key(orgId, documentId)),
    hasChunk: (orgId, chunkId) => byChunk.has(key(orgId, chunkId)),
    deleteChunks(orgId, chunkIds) {
      for (const id of chunkIds) {
        const slot = byChunk.get(key(orgId, id));
        if (slot !== undefined) remove(slot);
      }
    },
    search(orgId, corpusIds, vector, limit) {
      const gs = [...new Set(corpusIds)].flatMap((c) => groups.get(key(orgId, c)) ?? []);
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
        chunkId: chunkOf[slot]!, documentId: docOf[slot]!, corpusId: groupOf[slot]!.corpusId, score,
      }));
    },
  };
}
