/**
 * BM25 over one organization's own statistics. LanceDB's full-text index scores with statistics
 * of the whole table, which every organization shares (how many chunks hold a word, whoever
 * owns them, and their average length), so another organization's documents would change which
 * of one's own chunks rank first: a side channel between tenants. So the driver (lance.ts)
 * keeps, per organization, the statistics BM25 needs, in step with its writes (`TextStats`),
 * asks the index only for candidates and ranks them here with the index's formula and terms
 * (fts-terms.ts) over those statistics (`rankScoped`).
 *
 * The statistics are of every row the organization has in the table: all its corpora, not only
 * the ones asked, and rows SQLite already calls deleted until their index delete has run (a
 * corpus delete marks its rows in the background; a superseded generation is removed once its
 * replacement is written). That is the organization's own data only.
 */
import { forEachTerm, termHash } from "./fts-terms.ts";

/** LanceDB's BM25 constants. */
const K1 = 1.2;
const B = 0.75;

/** What BM25 needs of an organization's rows. */
export interface OrgTextStats {
  /** Rows (chunks). */
  readonly rows: number;
  /** Terms over all rows, repeats counted: rows / this is the average length. */
  readonly length: number;
  /** Rows holding the term. */
  df(term: string): number;
}

const NONE: OrgTextStats = { rows: 0, length: 0, df: () => 0 };

/**
 * Term → count, open addressing over typed arrays keyed by the term's hash (fts-terms.ts hands
 * it out with every term, so a count is found without hashing the string again), linear probing
 * at a load of at most ½, an entry removed by shifting the ones after it back.
 */
class TermCounts {
  size = 0;
  private mask: number;
  private hashes: Int32Array;
  private counts: Int32Array;
  private terms: (string | undefined)[];

  constructor(capacity = 16) {
    this.mask = capacity - 1;
    this.hashes = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.terms = new Array<string | undefined>(capacity).fill(undefined);
  }

  get(term: string, hash: number): number {
    const { mask, hashes, terms } = this;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const t = terms[i];
      if (t === undefined) return 0;
      if (hashes[i] === hash && t === term) return this.counts[i]!;
    }
  }

  /** Adds `delta` to the term's count; a count that falls to 0 or below is removed. */
  add(term: string, hash: number, delta: number): void {
    const { mask, hashes, terms } = this;
    let i = hash & mask;
    for (; ; i = (i + 1) & mask) {
      const t = terms[i];
      if (t === undefined) break;
      if (hashes[i] === hash && t === term) {
        const d = this.counts[i]! + delta;
        if (d > 0) this.counts[i] = d;
        else this.removeAt(i);
        return;
      }
    }
    if (delta <= 0) return;
    terms[i] = term;
    hashes[i] = hash;
    this.counts[i] = delta;
    if (++this.size * 2 > terms.length) this.resize(terms.length * 2);
  }

  forEach(each: (term: string, count: number, hash: number) => void): void {
    for (let i = 0; i < this.terms.length; i++) if (this.terms[i] !== undefined) each(this.terms[i]!, this.counts[i]!, this.hashes[i]!);
  }

  private removeAt(i: number): void {
    const { mask, hashes, terms, counts } = this;
    for (let j = (i + 1) & mask; terms[j] !== undefined; j = (j + 1) & mask) {
      // The entry at j moves back to i unless its home lies cyclically in (i, j].
      const home = hashes[j]! & mask;
      if (i <= j ? i < home && home <= j : i < home || home <= j) continue;
      terms[i] = terms[j];
      hashes[i] = hashes[j]!;
      counts[i] = counts[j]!;
      i = j;
    }
    terms[i] = undefined;
    this.size--;
    if (this.terms.length > 16 && this.size * 8 < this.terms.length) this.resize(this.terms.length / 2);
  }

  private resize(capacity: number): void {
    const { hashes, terms, counts } = this;
    this.mask = capacity - 1;
    this.hashes = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.terms = new Array<string | undefined>(capacity).fill(undefined);
    for (let j = 0; j < terms.length; j++) {
      const t = terms[j];
      if (t === undefined) continue;
      let i = hashes[j]! & this.mask;
      while (this.terms[i] !== undefined) i = (i + 1) & this.mask;
      this.terms[i] = t;
      this.hashes[i] = hashes[j]!;
      this.counts[i] = counts[j]!;
    }
  }
}

class OrgCounts implements OrgTextStats {
  rows = 0;
  length = 0;
  readonly counts = new TermCounts();
  df(term: string): number {
    return this.counts.get(term, termHash(term));
  }
}

/**
 * The distinct terms of one text, each with its hash, in a table reused from text to text (an
 * entry is live when its stamp is the current text's), so that a row's terms are counted once each.
 */
class DistinctTerms {
  terms: string[] = [];
  hashes: number[] = [];
  private mask = 255;
  private stamp = new Int32Array(256);
  private slotHash = new Int32Array(256);
  private slotTerm: (string | undefined)[] = new Array<string | undefined>(256).fill(undefined);
  private epoch = 0;

  begin(): void {
    this.terms.length = 0;
    this.hashes.length = 0;
    if (++this.epoch === 0x7fffffff) { this.stamp.fill(0); this.epoch = 1; }
  }

  add(term: string, hash: number): void {
    const { mask, stamp, slotHash, slotTerm, epoch } = this;
    let i = hash & mask;
    for (; stamp[i] === epoch; i = (i + 1) & mask) if (slotHash[i] === hash && slotTerm[i] === term) return;
    stamp[i] = epoch;
    slotHash[i] = hash;
    slotTerm[i] = term;
    this.terms.push(term);
    this.hashes.push(hash);
    if (this.terms.length * 2 > mask + 1) this.rebuild((mask + 1) * 2);
  }

  /** Drops a table a very long text grew, and the terms it points to. */
  end(): void {
    if (this.mask + 1 > 4096) this.rebuild(256, false);
    else this.slotTerm.fill(undefined);
    this.terms.length = 0;
    this.hashes.length = 0;
  }

  private rebuild(capacity: number, keep = true): void {
    this.mask = capacity - 1;
    this.stamp = new Int32Array(capacity);
    this.slotHash = new Int32Array(capacity);
    this.slotTerm = new Array<string | undefined>(capacity).fill(undefined);
    this.epoch = 1;
    if (!keep) return;
    for (let k = 0; k < this.terms.length; k++) {
      let i = this.hashes[k]! & this.mask;
      while (this.stamp[i] === 1) i = (i + 1) & this.mask;
      this.stamp[i] = 1;
      this.slotHash[i] = this.hashes[k]!;
      this.slotTerm[i] = this.terms[k];
    }
  }
}

/**
 * Per-organization row count, total length and document frequency of every term, for one
 * table. The driver calls add() for every row it commits, and subtract() with the counts of the
 * rows it deletes; nothing here is shared between organizations.
 */
export class TextStats {
  private readonly orgs = new Map<string, OrgCounts>();
  private readonly distinct = new DistinctTerms();

  add(orgId: string, text: string): void {
    let o = this.orgs.get(orgId);
    if (!o) this.orgs.set(orgId, (o = new OrgCounts()));
    const distinct = this.distinct;
    distinct.begin();
    let length = 0;
    forEachTerm(text, (t, h) => {
      length++;
      distinct.add(t, h);
    });
    o.rows++;
    o.length += length;
    const { terms, hashes } = distinct;
    for (let k = 0; k < terms.length; k++) o.counts.add(terms[k]!, hashes[k]!, 1);
    distinct.end();
  }

  /**
   * Adds everything `more` counts: rows committed while the others were being counted from an
   * earlier version of the table (lance.ts counts outside its write queue).
   */
  merge(more: TextStats): void {
    for (const [orgId, m] of more.orgs) {
      let o = this.orgs.get(orgId);
      if (!o) this.orgs.set(orgId, (o = new OrgCounts()));
      const into = o;
      into.rows += m.rows;
      into.length += m.length;
      m.counts.forEach((t, n, h) => into.counts.add(t, h, n));
    }
  }

  /**
   * Takes away everything `gone` counts (rows removed from the table, counted with add() before the
   * delete): a delete keeps the terms of the rows it removes, not their text.
   */
  subtract(gone: TextStats): void {
    for (const [orgId, g] of gone.orgs) {
      const o = this.orgs.get(orgId);
      if (!o) continue;
      o.rows -= g.rows;
      o.length -= g.length;
      g.counts.forEach((t, n, h) => o.counts.add(t, h, -n));
      if (o.rows <= 0) this.orgs.delete(orgId);
    }
  }

  of(orgId: string): OrgTextStats {
    return this.orgs.get(orgId) ?? NONE;
  }

  /** Every organization's counts, for a snapshot (lance.ts saves one on a clean close). */
  toJSON(): SavedTextStats {
    return {
      orgs: [...this.orgs].map(([orgId, o]) => {
        const terms: string[] = [], df: number[] = [];
        o.counts.forEach((t, d) => { terms.push(t); df.push(d); });
        return { orgId, rows: o.rows, length: o.length, terms, df };
      }),
    };
  }

  static fromJSON(saved: SavedTextStats): TextStats {
    const stats = new TextStats();
    for (const s of saved.orgs) {
      const o = new OrgCounts();
      o.rows = s.rows;
      o.length = s.length;
      s.terms.forEach((t, i) => o.counts.add(t, termHash(t), s.df[i]!));
      stats.orgs.set(s.orgId, o);
    }
    return stats;
  }

  /** Distinct terms kept, over all organizations (a term two hold counts twice). */
  get terms(): number {
    let n = 0;
    for (const o of this.orgs.values()) n += o.counts.size;
    return n;
  }
}

export interface SavedTextStats {
  orgs: { orgId: string; rows: number; length: number; terms: string[]; df: number[] }[];
}

export interface Candidate { chunkId: string; documentId: string; corpusId: string; text: string }
export interface ScoredRow { chunkId: string; documentId: string; corpusId: string; score: number }

/** The candidates ranked for `query` by BM25 over `stats`, best first; equal scores by chunk id. */
export function rankScoped(query: string, candidates: Candidate[], stats: OrgTextStats, limit: number): ScoredRow[] {
  const queryTerms: string[] = [];
  const askedHash: number[] = [];
  const asked = new Map<string, number>();
  forEachTerm(query, (t, h) => {
    queryTerms.push(t);
    if (!asked.has(t)) { asked.set(t, asked.size); askedHash.push(h); }
  });
  if (!queryTerms.length || !candidates.length) return [];
  // A term asked twice counts twice, as the index counts it.
  const weight = new Float64Array(asked.size);
  for (const t of queryTerms) weight[asked.get(t)!]!++;
  // A candidate committed after the statistics were read must not leave them short of it.
  const n = Math.max(stats.rows, candidates.length);
  const avgLength = stats.rows > 0 && stats.length > 0 ? stats.length / stats.rows : 1;
  const idf = Array.from(asked.keys(), (t) => {
    const d = Math.min(stats.df(t), n);
    return Math.log((n - d + 0.5) / (d + 0.5) + 1);
  });
  const f = new Int32Array(asked.size);
  // Most of a candidate's terms are not asked: one bit per hash's low 5 bits turns them away
  // before any comparison; a query's few terms are then found in a list, by hash first.
  let bits = 0;
  for (const h of askedHash) bits |= 1 << (h & 31);
  const few = asked.size <= 12 ? [...asked.keys()] : undefined;
  const fewHash = Int32Array.from(askedHash);
  let length = 0;
  const count = few
    ? (t: string, h: number) => {
      length++;
      if ((bits & (1 << (h & 31))) === 0) return;
      for (let q = 0; q < few.length; q++) if (fewHash[q] === h && few[q] === t) { f[q]!++; break; }
    }
    : (t: string, h: number) => {
      length++;
      if ((bits & (1 << (h & 31))) === 0) return;
      const q = asked.get(t);
      if (q !== undefined) f[q]!++;
    };
  const scored: ScoredRow[] = candidates.map((c) => {
    f.fill(0);
    length = 0;
    forEachTerm(c.text, count);
    const norm = K1 * (1 - B + (B * length) / avgLength);
    let score = 0;
    for (let q = 0; q < f.length; q++) if (f[q]) score += weight[q]! * idf[q]! * ((f[q]! * (K1 + 1)) / (f[q]! + norm));
    return { chunkId: c.chunkId, documentId: c.documentId, corpusId: c.corpusId, score };
  });
  scored.sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
  return scored.slice(0, limit);
}
