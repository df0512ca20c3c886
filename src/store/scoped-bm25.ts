/**
 * BM25 over one caller's own chunks. LanceDB's full-text index scores with statistics of the
 * whole table, which every organization shares (how many chunks hold a word, whoever owns
 * them), so another organization's documents would change which of one's own chunks rank
 * first: a side channel between tenants. The driver therefore asks the index only for the
 * candidates, every chunk of the caller's corpora that holds a query term (the pool), and
 * ranks them here with the index's formula and terms (fts-terms.ts) but statistics of the
 * caller's corpora alone:
 *
 *   - document frequency of each term: counted in the pool, which is exact while the pool
 *     holds every match;
 *   - number of chunks: the rows of the caller's corpora;
 *   - average length: over the pool. The index averages over every chunk; the corpora's own
 *     average would need every chunk's terms on each query, and the pool's is of the same order.
 *
 * Equal scores are ordered by chunk id, not by the index's order, which comes from the shared
 * statistics.
 */
import { forEachTerm, ftsTerms } from "./fts-terms.ts";

/** LanceDB's BM25 constants. */
const K1 = 1.2;
const B = 0.75;

/** A chunk's distinct terms with their counts, and its length in terms. */
export interface ChunkTerms { length: number; terms: string[]; counts: Uint16Array }

export function chunkTerms(text: string): ChunkTerms {
  const byTerm = new Map<string, number>();
  let length = 0;
  forEachTerm(text, (t) => {
    length++;
    byTerm.set(t, (byTerm.get(t) ?? 0) + 1);
  });
  return { length, terms: [...byTerm.keys()], counts: Uint16Array.from(byTerm.values(), (c) => Math.min(c, 65535)) };
}

/**
 * Terms of recently ranked chunks, so that a query reads and splits only the chunks it has not
 * seen: splitting a few thousand chunks' text costs tens of milliseconds. A chunk's text only
 * changes by writing its id again, which forgets it; an entry read while any write ran is not
 * kept, since it may predate the write. Oldest entries go first past `max`.
 */
export class ChunkTermCache {
  private entries = new Map<string, ChunkTerms>();
  /** Bumped by every write: a search keeps what it read only if none ran meanwhile. */
  epoch = 0;
  constructor(private readonly max: number) {}
  get(chunkId: string): ChunkTerms | undefined {
    return this.entries.get(chunkId);
  }
  put(chunkId: string, terms: ChunkTerms, epoch: number): void {
    if (epoch !== this.epoch) return;
    this.entries.delete(chunkId);
    this.entries.set(chunkId, terms);
    if (this.entries.size > this.max) for (const k of this.entries.keys()) {
      this.entries.delete(k);
      if (this.entries.size <= this.max * 0.9) break;
    }
  }
  /** After a committed write; `chunkIds` are the ids written again (whose text may have changed). */
  written(chunkIds: Iterable<string> = []): void {
    this.epoch++;
    for (const id of chunkIds) this.entries.delete(id);
  }
  get size(): number {
    return this.entries.size;
  }
}

export interface PoolRow { chunkId: string; documentId: string; corpusId: string; terms: ChunkTerms }
export interface ScoredRow { chunkId: string; documentId: string; corpusId: string; score: number }

/** The pool ranked for `query` by BM25 over the caller's statistics, best first. */
export function rankScoped(query: string, pool: PoolRow[], scopeRows: number, limit: number): ScoredRow[] {
  const queryTerms = ftsTerms(query);
  if (!queryTerms.length || !pool.length) return [];
  const asked = new Map<string, number>();
  for (const t of queryTerms) if (!asked.has(t)) asked.set(t, asked.size);
  // A term asked twice counts twice, as the index counts it.
  const weight = new Float64Array(asked.size);
  for (const t of queryTerms) weight[asked.get(t)!]!++;
  const df = new Float64Array(asked.size);
  const found: Int32Array[] = [];
  let total = 0;
  for (const row of pool) {
    const f = new Int32Array(asked.size);
    const { terms, counts } = row.terms;
    for (let j = 0; j < terms.length; j++) {
      const q = asked.get(terms[j]!);
      if (q !== undefined) {
        f[q] = counts[j]!;
        df[q]!++;
      }
    }
    found.push(f);
    total += row.terms.length;
  }
  // A write between counting the rows and reading the pool must not make the count too small.
  const n = Math.max(scopeRows, pool.length);
  const avgLength = total / pool.length || 1;
  const idf = Array.from(df, (d) => Math.log((n - d + 0.5) / (d + 0.5) + 1));
  const scored: ScoredRow[] = pool.map((row, i) => {
    const norm = K1 * (1 - B + (B * row.terms.length) / avgLength);
    let score = 0;
    const f = found[i]!;
    for (let q = 0; q < f.length; q++) if (f[q]) score += weight[q]! * idf[q]! * ((f[q]! * (K1 + 1)) / (f[q]! + norm));
    return { chunkId: row.chunkId, documentId: row.documentId, corpusId: row.corpusId, score };
  });
  scored.sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
  return scored.slice(0, limit);
}
