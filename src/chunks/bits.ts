import type { Db } from "../store/db.ts";

/**
 * Reading the bitmap index (bits-sql.ts). A match is a list of words in (doc_seq, word) order;
 * each word stands for up to 64 chunks: rowid = w * 64 + bit, lo holding bits 0-31, hi 32-63
 * (split in SQL because JS numbers cannot carry 64 bits).
 */
export interface Word {
  s: number;
  w: number;
  lo: number;
  hi: number;
}

const halves = (b: string) => `(${b}) & 4294967295 AS lo, ((${b}) >> 32) & 4294967295 AS hi`;

/**
 * Words of the chunks that carry, for every set of terms, at least one member (sets of several
 * terms are key/value's typed alternatives). Each set's words are read in index order and the
 * sets merged here, smallest first: a probe per word into the index costs about ten times a
 * sequential read, so a large set is read whole, except that after a small one only the
 * documents still in play are read.
 */
export function matchWords(db: Db, orgKey: number, conds: string[][], seq?: number): Word[] {
  const sized = conds.map((terms) => ({ terms, n: terms.reduce((a, t) => a + size(db, orgKey, t, seq), 0) }));
  if (sized.some((x) => x.n === 0)) return [];
  sized.sort((a, b) => a.n - b.n);
  let words: Word[] = [];
  sized.forEach((set, i) => {
    if (i > 0 && words.length === 0) return;
    const seqs = i > 0 && set.n > 4 * words.length ? [...new Set(words.map((x) => x.s))] : undefined;
    const next = read(db, orgKey, set.terms, seq, seqs);
    words = i === 0 ? next : intersect(words, next);
  });
  return words;
}

const size = (db: Db, orgKey: number, term: string, seq: number | undefined) =>
  db
    .query<{ n: number }, [number, string]>(`SELECT count(*) AS n FROM chunk_bits WHERE org_key = ? AND term = ? ${seq === undefined ? "" : `AND doc_seq = ${Number(seq)}`}`)
    .get(orgKey, term)!.n;

/** Words carrying any of the terms, in (doc_seq, word) order, optionally only in some chunk sets. */
function read(db: Db, orgKey: number, terms: string[], seq: number | undefined, seqs: number[] | undefined): Word[] {
  const where = seq !== undefined ? `AND doc_seq = ${Number(seq)}` : seqs ? "AND doc_seq IN (SELECT value FROM json_each(?))" : "";
  const args: (string | number)[] = seqs && seq === undefined ? [JSON.stringify(seqs)] : [];
  const rows = terms.flatMap((term) =>
    db
      .query<Word, (string | number)[]>(`SELECT doc_seq AS s, word AS w, ${halves("bits")} FROM chunk_bits WHERE org_key = ? AND term = ? ${where} ORDER BY doc_seq, word`)
      .all(orgKey, term, ...args),
  );
  if (terms.length === 1) return rows;
  rows.sort((a, b) => a.s - b.s || a.w - b.w);
  const out: Word[] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last && last.s === r.s && last.w === r.w) {
      last.lo = (last.lo | r.lo) >>> 0;
      last.hi = (last.hi | r.hi) >>> 0;
    } else out.push(r);
  }
  return out;
}

/** AND of two ordered word lists, a merge. */
function intersect(a: Word[], b: Word[]): Word[] {
  const out: Word[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    const c = x.s - y.s || x.w - y.w;
    if (c < 0) i++;
    else if (c > 0) j++;
    else {
      const lo = (x.lo & y.lo) >>> 0;
      const hi = (x.hi & y.hi) >>> 0;
      if (lo || hi) out.push({ s: x.s, w: x.w, lo, hi });
      i++;
      j++;
    }
  }
  return out;
}

/** The words of one term in some chunk sets. */
export const termWords = (db: Db, orgKey: number, term: string, seqs: number[]): Word[] =>
  read(db, orgKey, [term], undefined, seqs);

export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

export const wordCount = (x: Word) => popcount(x.lo) + popcount(x.hi);

/** The chunk rowids a word stands for, ascending. */
export function rowidsOf(x: Word, out: number[]): number[] {
  for (const [half, base] of [[x.lo, x.w * 64], [x.hi, x.w * 64 + 32]] as const) {
    let v = half;
    while (v) {
      const low = v & -v;
      out.push(base + 31 - Math.clz32(low));
      v ^= low;
    }
  }
  return out;
}
