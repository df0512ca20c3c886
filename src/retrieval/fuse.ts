import type { VectorHit } from "../store/vector.ts";

/** The usual RRF constant: large enough that rank 1 does not drown rank 5 of the other list. */
export const RRF_K = 60;

export interface FusedHit {
  chunkId: string;
  documentId: string;
  corpusId: string;
  score: number;
  /** Best (lowest, 1-based) rank the chunk had in any list; breaks score ties. */
  bestRank: number;
}

/**
 * Reciprocal rank fusion: score = Σ w / (k + rank) over the lists a chunk appears in (w = the
 * list's weight, 1 by default). Ranks,
 * not raw scores, are fused because cosine similarities and BM25 scores live on unrelated
 * scales. A chunk listed twice in one list counts once, at its best rank. Ties go to the better
 * best rank, then to the chunk id, so the order is deterministic.
 */
export function reciprocalRankFusion(lists: VectorHit[][], k = RRF_K, weights: number[] = []): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  lists.forEach((list, li) => {
    const w = weights[li] ?? 1;
    const seen = new Set<string>();
    list.forEach((hit, i) => {
      if (seen.has(hit.chunkId)) return;
      seen.add(hit.chunkId);
      const rank = i + 1;
      const cur = fused.get(hit.chunkId);
      if (cur) {
        cur.score += w / (k + rank);
        cur.bestRank = Math.min(cur.bestRank, rank);
      } else {
        fused.set(hit.chunkId, { chunkId: hit.chunkId, documentId: hit.documentId, corpusId: hit.corpusId, score: w / (k + rank), bestRank: rank });
      }
    });
  });
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || a.bestRank - b.bestRank || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0),
  );
}
