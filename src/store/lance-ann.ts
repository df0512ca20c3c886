/**
 * LanceDB's approximate vector index for the chunk table (lance.ts): which kind, how many
 * partitions, how much of them a query probes. It only answers while the in-memory vector copy
 * loads or where that copy is unavailable.
 */
import * as lancedb from "@lancedb/lancedb";

/** Rows from which ensureVectorIndex() builds an approximate index; below, exact search is fast enough. */
export const ANN_MIN_ROWS = 50_000;

export interface AnnSearch {
  /** Share of the IVF partitions probed (at least one). */
  probeFraction: number;
  /** Candidates re-scored on full vectors: limit × refineFactor; 0 = none (needless without quantization). */
  refineFactor: number;
}

export type AnnKind = "ivf-flat" | "ivf-hnsw-sq" | "ivf-pq";

/**
 * IVF_FLAT: partitions by k-means, full vectors inside, so distances are exact and recall
 * depends on the probed share alone. The sweep of scripts/bench-query.ts chose it over
 * IVF_PQ (recall@10 ≤ 0.42 even re-ranking ×10: PQ codes cannot rank hashed-feature vectors),
 * IVF_HNSW_SQ (0.87–0.91 at refine ×10, slower, a 280 s build against 14 s) and IVF_RQ
 * (0.60–0.89 at 90 % of partitions, refine ×10–30). Since the in-memory copy answers, this
 * index only serves while the copy loads or where it is unavailable.
 */
export const ANN_KIND: AnnKind = "ivf-flat";

/**
 * Query-time setting, from the sweep at 100,000 chunks: 75 % of the partitions gave recall@10
 * 0.936–0.959 and 80 % 0.950–0.969 (k-means differs per build); 90 % keeps 0.97–0.99 for a few
 * milliseconds more. The share is high because hashed-feature vectors barely cluster.
 */
export const ANN_SEARCH: AnnSearch = { probeFraction: 0.9, refineFactor: 0 };

/**
 * IVF partitions: about sqrt(rows), the usual balance between picking partitions and scanning
 * them (HNSW graphs want few: each partition is a graph).
 */
export const annPartitions = (rows: number, kind: AnnKind = ANN_KIND): number =>
  kind === "ivf-hnsw-sq" ? 4 : Math.max(8, Math.round(Math.sqrt(rows)));

export function annIndex(kind: AnnKind, numPartitions: number, dims: number): lancedb.Index {
  const distanceType = "cosine";
  if (kind === "ivf-hnsw-sq") return lancedb.Index.hnswSq({ distanceType, numPartitions });
  // 8 dimensions per PQ sub-vector keeps SIMD lanes full; 384 dims → 48 sub-vectors.
  if (kind === "ivf-pq") return lancedb.Index.ivfPq({ distanceType, numPartitions, numSubVectors: dims % 8 === 0 ? dims / 8 : 1 });
  return lancedb.Index.ivfFlat({ distanceType, numPartitions });
}

