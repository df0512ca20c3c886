import type { AppContext } from "../context.ts";
import { fromJson } from "../store/db.ts";
import { liveChunkIds } from "../store/live-chunks.ts";
import { queryEmbedderOf } from "../store/switching-index.ts";
import type { VectorHit } from "../store/vector.ts";
import { reciprocalRankFusion, RRF_K } from "./fuse.ts";

export type RetrievalMode = "hybrid" | "vector" | "bm25";
export type RetrievalContext = Pick<AppContext, "db" | "models" | "vectors">;

export interface RetrieveOptions {
  topK: number;
  mode?: RetrievalMode;
  /** Candidates asked of each index per round; default max(topK × DEPTH_FACTOR, MIN_DEPTH). */
  depth?: number;
  rrfK?: number;
  /** Weight of the vector list against the BM25 list in the fusion (default VECTOR_WEIGHT). */
  vectorWeight?: number;
}

export interface RetrievedChunk {
  chunkId: string;
  documentId: string;
  corpusId: string;
  generation: number;
  /** 1-based pages of the chunk as stored now (a PATCH may have changed them). */
  pages: number[];
  /** The chunk text from SQLite: a patched chunk is handed on with its new text. */
  text: string;
  /** The document's filename, shown to the model as the passage title. */
  title: string;
  score: number;
}

/** Each list is read deeper than topK: fusion needs overlap, and the live filter may drop hits. */
export const DEPTH_FACTOR = 4;
export const MIN_DEPTH = 20;
/** Equal weights: on the evaluation set no weighting changed hit@1 (scripts/eval-retrieval.ts --vector-weight). */
export const VECTOR_WEIGHT = 1;
/** Re-ask with a deeper list this many times when deleted chunks left fewer than topK. */
const MAX_ROUNDS = 3;

/** Keeps words and numbers: the full-text parser must never see operators typed by a user. */
export const textQuery = (q: string): string => q.replace(/[^\p{L}\p{N}\s]+/gu, " ").replace(/\s+/g, " ").trim();

interface ChunkRow {
  id: string;
  document_id: string;
  corpus_id: string;
  generation: number;
  pages: string;
  body: string | null;
  filename: string;
}

function loadChunks(ctx: RetrievalContext, orgId: string, ids: string[]): Map<string, ChunkRow> {
  if (!ids.length) return new Map();
  const rows = ctx.db
    .query<ChunkRow, string[]>(
      `SELECT c.id, c.document_id, c.corpus_id, c.generation, c.pages, c.body, d.filename
       FROM chunks c JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
       WHERE c.org_id = ? AND c.id IN (${ids.map(() => "?").join(",")})`,
    )
    .all(orgId, ...ids);
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The retrieval step of a query: search the organization's index over the given corpora only,
 * fuse, keep what SQLite says is live, and load the current text. The index is never trusted
 * for visibility or text: it only proposes candidate ids.
 */
export async function retrieve(
  ctx: RetrievalContext,
  orgId: string,
  corpusIds: string[],
  question: string,
  opts: RetrieveOptions,
): Promise<RetrievedChunk[]> {
  const mode = opts.mode ?? "hybrid";
  const topK = Math.max(0, Math.trunc(opts.topK));
  if (topK === 0 || corpusIds.length === 0 || !question.trim()) return [];
  const vector = mode === "bm25" ? undefined : (await queryEmbedderOf(ctx.vectors, () => ctx.models.embedder()).embed([question], "query"))[0]!;
  const text = mode === "vector" ? "" : textQuery(question);
  let depth = opts.depth ?? Math.max(topK * DEPTH_FACTOR, MIN_DEPTH);

  for (let round = 1; ; round++) {
    const [byVector, byText] = await Promise.all([
      vector ? ctx.vectors.searchVector(orgId, corpusIds, vector, depth) : Promise.resolve([] as VectorHit[]),
      text ? ctx.vectors.searchText(orgId, corpusIds, text, depth) : Promise.resolve([] as VectorHit[]),
    ]);
    // The port promises scoping; this re-check makes a driver bug unable to leak across corpora.
    const allowed = new Set(corpusIds);
    const lists = [byVector, byText].map((l) => l.filter((h) => allowed.has(h.corpusId)));
    const fused = reciprocalRankFusion(lists, opts.rrfK ?? RRF_K, [opts.vectorWeight ?? VECTOR_WEIGHT, 1]);
    const live = liveChunkIds(ctx.db, orgId, fused.map((h) => h.chunkId));
    const kept = fused.filter((h) => live.has(h.chunkId)).slice(0, topK);
    const saturated = byVector.length >= depth || byText.length >= depth;
    if (kept.length < topK && saturated && round < MAX_ROUNDS) {
      depth *= 4;
      continue;
    }
    const rows = loadChunks(ctx, orgId, kept.map((h) => h.chunkId));
    return kept.flatMap((h) => {
      const r = rows.get(h.chunkId);
      if (!r || !allowed.has(r.corpus_id)) return [];
      return [{
        chunkId: r.id, documentId: r.document_id, corpusId: r.corpus_id, generation: r.generation,
        pages: fromJson<number[]>(r.pages, []), text: r.body ?? "", title: r.filename, score: h.score,
      }];
    });
  }
}
