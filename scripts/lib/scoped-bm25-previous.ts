/**
 * Text statistics and ranking as the version before the single-pass term scanner ran them
 * (src/store/scoped-bm25.ts `TextStats`, `rankScoped`), on the term splitting of that version
 * (fts-terms-previous.ts): the baseline of bench-fts-terms.ts and the oracle of the test that
 * compares counts and scores (test/ingest/fts-terms-same-as-previous.test.ts).
 */
import { forEachTermPrevious as forEachTerm, ftsTermsPrevious as ftsTerms } from "./fts-terms-previous.ts";

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

class OrgCounts implements OrgTextStats {
  rows = 0;
  length = 0;
  readonly counts = new Map<string, number>();
  df(term: string): number {
    return this.counts.get(term) ?? 0;
  }
}

/**
 * Per-organization row count, total length and document frequency of every term, for one
 * table. The driver calls add() for every row it commits and remove() with the text of every
 * row it deletes; nothing here is shared between organizations.
 */
export class TextStatsPrevious {
  private readonly orgs = new Map<string, OrgCounts>();
  private readonly seen = new Set<string>();

  add(orgId: string, text: string): void {
    this.apply(orgId, text, 1);
  }

  remove(orgId: string, text: string): void {
    this.apply(orgId, text, -1);
  }

  of(orgId: string): OrgTextStats {
    return this.orgs.get(orgId) ?? NONE;
  }

  /** Every organization's counts, for a snapshot (lance.ts saves one on a clean close). */
  toJSON(): SavedTextStats {
    return {
      orgs: [...this.orgs].map(([orgId, o]) => ({ orgId, rows: o.rows, length: o.length, terms: [...o.counts.keys()], df: [...o.counts.values()] })),
    };
  }

  static fromJSON(saved: SavedTextStats): TextStatsPrevious {
    const stats = new TextStatsPrevious();
    for (const s of saved.orgs) {
      const o = new OrgCounts();
      o.rows = s.rows;
      o.length = s.length;
      s.terms.forEach((t, i) => o.counts.set(t, s.df[i]!));
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

  private apply(orgId: string, text: string, sign: 1 | -1): void {
    let o = this.orgs.get(orgId);
    if (!o) {
      if (sign < 0) return;
      this.orgs.set(orgId, (o = new OrgCounts()));
    }
    const seen = this.seen;
    seen.clear();
    let length = 0;
    forEachTerm(text, (t) => {
      length++;
      seen.add(t);
    });
    o.rows += sign;
    o.length += sign * length;
    for (const t of seen) {
      const d = (o.counts.get(t) ?? 0) + sign;
      if (d > 0) o.counts.set(t, d);
      else o.counts.delete(t);
    }
    seen.clear();
    if (o.rows <= 0) this.orgs.delete(orgId);
  }
}

export interface SavedTextStats {
  orgs: { orgId: string; rows: number; length: number; terms: string[]; df: number[] }[];
}

export interface Candidate { chunkId: string; documentId: string; corpusId: string; text: string }
export interface ScoredRow { chunkId: string; documentId: string; corpusId: string; score: number }

/** The candidates ranked for `query` by BM25 over `stats`, best first; equal scores by chunk id. */
export function rankScopedPrevious(query: string, candidates: Candidate[], stats: OrgTextStats, limit: number): ScoredRow[] {
  const queryTerms = ftsTerms(query);
  if (!queryTerms.length || !candidates.length) return [];
  const asked = new Map<string, number>();
  for (const t of queryTerms) if (!asked.has(t)) asked.set(t, asked.size);
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
  // Terms come from one cache, so a query's few terms are found fastest by identity, in a list.
  const few = asked.size <= 12 ? [...asked.keys()] : undefined;
  const scored: ScoredRow[] = candidates.map((c) => {
    f.fill(0);
    let length = 0;
    forEachTerm(c.text, few ? (t) => {
      length++;
      for (let q = 0; q < few.length; q++) if (few[q] === t) { f[q]!++; break; }
    } : (t) => {
      length++;
      const q = asked.get(t);
      if (q !== undefined) f[q]!++;
    });
    const norm = K1 * (1 - B + (B * length) / avgLength);
    let score = 0;
    for (let q = 0; q < f.length; q++) if (f[q]) score += weight[q]! * idf[q]! * ((f[q]! * (K1 + 1)) / (f[q]! + norm));
    return { chunkId: c.chunkId, documentId: c.documentId, corpusId: c.corpusId, score };
  });
  scored.sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
  return scored.slice(0, limit);
}
