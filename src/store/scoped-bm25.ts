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
import { forEachTerm, ftsTerms } from "./fts-terms.ts";

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
 * table. The driver calls add() for every row it commits, and subtract() with the counts of the
 * rows it deletes; nothing here is shared between organizations.
 */
export class TextStats {
  private readonly orgs = new Map<string, OrgCounts>();
  private readonly seen = new Set<string>();

  add(orgId: string, text: string): void {
    let o = this.orgs.get(orgId);
    if (!o) this.orgs.set(orgId, (o = new OrgCounts()));
    const seen = this.seen;
    seen.clear();
    let length = 0;
    forEachTerm(text, (t) => {
      length++;
      seen.add(t);
    });
    o.rows++;
    o.length += length;
    for (const t of seen) o.counts.set(t, (o.counts.get(t) ?? 0) + 1);
    seen.clear();
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
      for (const [t, n] of g.counts) {
        const d = (o.counts.get(t) ?? 0) - n;
        if (d > 0) o.counts.set(t, d);
        else o.counts.delete(t);
      }
      if (o.rows <= 0) this.orgs.delete(orgId);
    }
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

  static fromJSON(saved: SavedTextStats): TextStats {
    const stats = new TextStats();
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
}

export interface SavedTextStats {
  orgs: { orgId: string; rows: number; length: number; terms: string[]; df: number[] }[];
}

export interface Candidate { chunkId: string; documentId: string; corpusId: string; text: string }
export interface ScoredRow { chunkId: string; documentId: string; corpusId: string; score: number }

/** The candidates ranked for `query` by BM25 over `stats`, best first; equal scores by chunk id. */
export function rankScoped(query: string, candidates: Candidate[], stats: OrgTextStats, limit: number): ScoredRow[] {
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
