import type { Db } from "../store/db.ts";

/**
 * Reading the bitmap index (bits-sql.ts). A match is a list of words in (doc_seq, word) order;
 * each word stands for up to 64 chunks: rowid = w * 64 + bit, lo holding bits 0-31, hi 32-63
 * (split in SQL because JS numbers cannot carry 64 bits). Lists are columns of typed arrays, not
 * an object per word: a common term has thousands of words, and a request that made an object
 * for each (and again for each intersection) fed the garbage collector in proportion to the
 * matches rather than to the page it returns.
 */
export interface Words {
  n: number;
  s: Int32Array;
  w: Float64Array;
  lo: Int32Array;
  hi: Int32Array;
}

export const EMPTY: Words = words(0);

export function words(cap: number): Words {
  return { n: 0, s: new Int32Array(cap), w: new Float64Array(cap), lo: new Int32Array(cap), hi: new Int32Array(cap) };
}

/** Bytes a list holds, for the cache's budget. */
export const bytesOf = (x: Words) => x.s.length * 20;

/**
 * Words carrying `term`, in index order: all of them, or those of one chunk set (`seq`) or of
 * some chunk sets (`seqs`, ascending).
 */
export function readTerm(db: Db, orgKey: number, term: string, only?: { seq?: number; seqs?: number[] }): Words {
  const where =
    only?.seq !== undefined ? `AND doc_seq = ${Number(only.seq)}` : only?.seqs ? "AND doc_seq IN (SELECT value FROM json_each(?))" : "";
  const args: (string | number)[] = [orgKey, term];
  if (only?.seq === undefined && only?.seqs) args.push(JSON.stringify(only.seqs));
  const rows = db
    .query<[number, number, number, number], (string | number)[]>(
      `SELECT doc_seq, word, bits & 4294967295, (bits >> 32) & 4294967295 FROM chunk_bits
       WHERE org_key = ? AND term = ? ${where} ORDER BY doc_seq, word`,
    )
    .values(...args) as [number, number, number, number][];
  const out = words(rows.length);
  for (const r of rows) push(out, r[0], r[1], r[2] | 0, r[3] | 0);
  return out;
}

/** Number of words of a term, from the index alone. */
export const termSize = (db: Db, orgKey: number, term: string) =>
  db.query<{ n: number }, [number, string]>("SELECT count(*) AS n FROM chunk_bits WHERE org_key = ? AND term = ?").get(orgKey, term)!.n;

function push(x: Words, s: number, w: number, lo: number, hi: number) {
  const i = x.n++;
  x.s[i] = s;
  x.w[i] = w;
  x.lo[i] = lo;
  x.hi[i] = hi;
}

const cmp = (a: Words, i: number, b: Words, j: number) => a.s[i]! - b.s[j]! || a.w[i]! - b.w[j]!;

/** AND of two ordered lists, a merge. */
export function intersect(a: Words, b: Words): Words {
  const out = words(Math.min(a.n, b.n));
  let i = 0;
  let j = 0;
  while (i < a.n && j < b.n) {
    const c = cmp(a, i, b, j);
    if (c < 0) i++;
    else if (c > 0) j++;
    else {
      const lo = a.lo[i]! & b.lo[j]!;
      const hi = a.hi[i]! & b.hi[j]!;
      if (lo || hi) push(out, a.s[i]!, a.w[i]!, lo, hi);
      i++;
      j++;
    }
  }
  return out;
}

/** OR of two ordered lists, a merge. */
export function union(a: Words, b: Words): Words {
  const out = words(a.n + b.n);
  let i = 0;
  let j = 0;
  while (i < a.n || j < b.n) {
    const c = i === a.n ? 1 : j === b.n ? -1 : cmp(a, i, b, j);
    if (c < 0) push(out, a.s[i]!, a.w[i]!, a.lo[i]!, a.hi[i]!), i++;
    else if (c > 0) push(out, b.s[j]!, b.w[j]!, b.lo[j]!, b.hi[j]!), j++;
    else push(out, a.s[i]!, a.w[i]!, a.lo[i]! | b.lo[j]!, a.hi[i]! | b.hi[j]!), i++, j++;
  }
  return out;
}

/** The words of one chunk set: a view, no copy. */
export function ofSeq(x: Words, seq: number): Words {
  let lo = 0;
  let hi = x.n;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (x.s[m]! < seq) lo = m + 1;
    else hi = m;
  }
  let end = lo;
  while (end < x.n && x.s[end] === seq) end++;
  return { n: end - lo, s: x.s.subarray(lo, end), w: x.w.subarray(lo, end), lo: x.lo.subarray(lo, end), hi: x.hi.subarray(lo, end) };
}

export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

export const wordCount = (x: Words, i: number) => popcount(x.lo[i]!) + popcount(x.hi[i]!);

/** Appends the chunk rowids of words [from, to) to out, ascending. */
export function rowidsOf(x: Words, from: number, to: number, out: number[]): number[] {
  for (let i = from; i < to; i++) {
    bitsOf(x.lo[i]!, x.w[i]! * 64, out);
    bitsOf(x.hi[i]!, x.w[i]! * 64 + 32, out);
  }
  return out;
}

function bitsOf(v: number, base: number, out: number[]) {
  while (v) {
    const low = v & -v;
    out.push(base + 31 - Math.clz32(low));
    v ^= low;
  }
}
