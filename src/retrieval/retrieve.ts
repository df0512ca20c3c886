import { LIVE_CHUNK } from "../store/live-chunks.ts";
import type { AppContext } from "../context.ts";
import { fromJson } from "../store/db.ts";
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
  /** Override the embedder's fusion profile (evaluation and tests). */
  rrfK?: number;
  /** Weight of the vector list against the BM25 list (BM25 weighs 1). */
  vectorWeight?: number;
  /** Filled with the time of each phase (benchmark instrumentation). */
  timings?: RetrievalTimings;
}

/** Milliseconds per phase, summed over rounds; `rounds` counts the searches asked. */
export interface RetrievalTimings { embed: number; vector: number; text: number; fuse: number; live: number; rounds: number }

export const newTimings = (): RetrievalTimings => ({ embed: 0, vector: 0, text: 0, fuse: 0, live: 0, rounds: 0 });

/** Times fn from its call, which for an in-memory search is where the work happens. */
const timed = async <T>(fn: () => Promise<T>, add: (ms: number) => void): Promise<T> => {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    add(performance.now() - t);
  }
};

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

export interface FusionProfile { rrfK: number; vectorWeight: number }

/** Plain RRF with equal weights: the usual choice for a neural embedder, which the evaluation cannot run here. */
export const DEFAULT_FUSION: FusionProfile = { rrfK: RRF_K, vectorWeight: 1 };

/**
 * Per-embedder fusion settings. For the built-in hashing embedder, whose vectors are a weaker
 * signal than BM25, a BM25-led fusion (k 1, vector weight 1/4) was chosen by 5-fold
 * cross-validation over the evaluation's questions (scripts/eval-retrieval.ts --cv); the vector
 * list then breaks BM25's ties and lifts what BM25 misses (inflections). Other embedders use
 * plain RRF until they can be evaluated here.
 */
const FUSION_BY_EMBEDDER: Record<string, FusionProfile> = {
  "builtin-hash-embed": { rrfK: 1, vectorWeight: 0.25 },
};

export function fusionProfile(embedderId: string): FusionProfile {
  return FUSION_BY_EMBEDDER[embedderId] ?? DEFAULT_FUSION;
}
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

/**
 * The live ones of these chunks (store/live-chunks.ts) with their current text, in one
 * statement. The ids travel as one JSON array so the SQL text, and thus the prepared statement
 * SQLite caches, is the same whatever the candidate count. CROSS JOIN pins the loop order:
 * one primary-key lookup per candidate. Left to itself the planner walks the organization's
 * (org_id, deleted_at) index instead, every live chunk of the organization: 31 ms per query at
 * 100,000 chunks against 0.3 ms.
 */
function loadLiveChunks(ctx: RetrievalContext, orgId: string, ids: string[]): Map<string, ChunkRow> {
  if (!ids.length) return new Map();
  const rows = ctx.db
    .query<ChunkRow, [string, string]>(
      `SELECT c.id, c.document_id, c.corpus_id, c.generation, c.pages, c.body, d.filename
       FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value
         JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
       WHERE c.org_id = ? AND ${LIVE_CHUNK}`,
    )
    .all(JSON.stringify(ids), orgId);
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
  const embedder = queryEmbedderOf(ctx.vectors, () => ctx.models.embedder());
  const profile = fusionProfile(embedder.id);
  const weights = [opts.vectorWeight ?? profile.vectorWeight, 1];
  const tm = opts.timings ?? newTimings();
  let t0 = performance.now();
  const vector = mode === "bm25" ? undefined : (await embedder.embed([question], "query"))[0]!;
  tm.embed += performance.now() - t0;
  const text = mode === "vector" ? "" : textQuery(question);
  let depth = opts.depth ?? Math.max(topK * DEPTH_FACTOR, MIN_DEPTH);
  const allowed = new Set(corpusIds);

  for (let round = 1; ; round++) {
    tm.rounds++;
    // BM25 is asked first: it runs on LanceDB's threads while the vector search, an in-memory
    // scan on this thread (store/lance.ts), computes.
    const textHits = text ? timed(() => ctx.vectors.searchText(orgId, corpusIds, text, depth), (ms) => (tm.text += ms)) : Promise.resolve([] as VectorHit[]);
    const vectorHits = vector ? timed(() => ctx.vectors.searchVector(orgId, corpusIds, vector, depth), (ms) => (tm.vector += ms)) : Promise.resolve([] as VectorHit[]);
    const [byVector, byText] = await Promise.all([vectorHits, textHits]);
    t0 = performance.now();
    // The port promises scoping; this re-check makes a driver bug unable to leak across corpora.
    const lists = [byVector, byText].map((l) => l.filter((h) => allowed.has(h.corpusId)));
    const fused = reciprocalRankFusion(lists, opts.rrfK ?? profile.rrfK, weights);
    const t1 = performance.now();
    tm.fuse += t1 - t0;
    const rows = loadLiveChunks(ctx, orgId, fused.map((h) => h.chunkId));
    tm.live += performance.now() - t1;
    const kept = fused.filter((h) => rows.has(h.chunkId)).slice(0, topK);
    const saturated = byVector.length >= depth || byText.length >= depth;
    if (kept.length < topK && saturated && round < MAX_ROUNDS) {
      depth *= 4;
      continue;
    }
    return kept.flatMap((h) => {
      const r = rows.get(h.chunkId)!;
      if (!allowed.has(r.corpus_id)) return [];
      return [{
        chunkId: r.id, documentId: r.document_id, corpusId: r.corpus_id, generation: r.generation,
        pages: fromJson<number[]>(r.pages, []), text: r.body ?? "", title: r.filename, score: h.score,
      }];
    });
  }
}
