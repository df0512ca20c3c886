// k-fold cross-validation of the fusion settings for scripts/eval-retrieval.ts. Both hit lists
// are read once per question at the pipeline's depth; each setting is then a pure re-fusion,
// so the grid costs no extra searches. The live filter is not re-applied: every evaluation
// chunk is live.
import { reciprocalRankFusion } from "../../src/retrieval/fuse.ts";
import { DEPTH_FACTOR, MIN_DEPTH, textQuery, type RetrievalContext, type RetrievedChunk } from "../../src/retrieval/retrieve.ts";
import type { VectorHit } from "../../src/store/vector.ts";
import type { EvalQuestion } from "./corpus.ts";

/** Plain RRF first, so a tie keeps the least tuned setting. */
const KS = [60, 20, 10, 5, 2, 1];
const WEIGHTS = [1, 0.75, 0.5, 0.35, 0.25, 0.15, 0.1];
const FOLDS = 5;

type Setting = { k: number; w: number };

export async function crossValidate(
  ctx: RetrievalContext, orgId: string, corpusId: string, questions: EvalQuestion[], topK: number,
  rankOf: (q: EvalQuestion, got: RetrievedChunk[]) => number,
): Promise<void> {
  const depth = Math.max(topK * DEPTH_FACTOR, MIN_DEPTH);
  const embedder = ctx.models.embedder();
  const lists: [VectorHit[], VectorHit[]][] = [];
  for (const q of questions) {
    const [v] = await embedder.embed([q.q], "query");
    lists.push(await Promise.all([
      ctx.vectors.searchVector(orgId, [corpusId], v!, depth),
      ctx.vectors.searchText(orgId, [corpusId], textQuery(q.q), depth),
    ]));
  }
  const grid: Setting[] = KS.flatMap((k) => WEIGHTS.map((w) => ({ k, w })));
  // Rank per (setting, question); a chunk only needs documentId and pages to be scored.
  const pagesOf = new Map<string, number[]>();
  const rows = ctx.db.query<{ id: string; pages: string }, []>("SELECT id, pages FROM chunks").all();
  for (const r of rows) pagesOf.set(r.id, JSON.parse(r.pages));
  const asChunks = (hits: VectorHit[]) => hits.slice(0, topK).map((h) => ({ chunkId: h.chunkId, documentId: h.documentId, pages: pagesOf.get(h.chunkId) ?? [] }) as RetrievedChunk);
  const rr = (r: number) => (r ? 1 / r : 0);
  const table = grid.map(({ k, w }) => questions.map((q, i) => rr(rankOf(q, asChunks(reciprocalRankFusion(lists[i]!, k, [w, 1]) as unknown as VectorHit[])))));
  const single = (li: 0 | 1) => questions.map((q, i) => rr(rankOf(q, asChunks(lists[i]![li]))));
  const [vec, bm25] = [single(0), single(1)];
  const mean = (xs: number[], idx: number[]) => idx.reduce((s, i) => s + xs[i]!, 0) / idx.length;

  console.log(`\n5-fold cross-validation of the fusion (fold = question index mod ${FOLDS}; grid k ∈ {${KS}}, vector weight ∈ {${WEIGHTS}})`);
  console.log("| fold | chosen on the other folds | train MRR | held-out: vector | bm25 | hybrid |\n|---|---|---|---|---|---|");
  const held = { vec: 0, bm25: 0, hybrid: 0 };
  for (let f = 0; f < FOLDS; f++) {
    const train = questions.flatMap((_, i) => (i % FOLDS !== f ? [i] : []));
    const test = questions.flatMap((_, i) => (i % FOLDS === f ? [i] : []));
    let best = 0;
    grid.forEach((_, g) => { if (mean(table[g]!, train) > mean(table[best]!, train) + 1e-12) best = g; });
    const s = grid[best]!;
    const t = { vec: mean(vec, test), bm25: mean(bm25, test), hybrid: mean(table[best]!, test) };
    for (const key of ["vec", "bm25", "hybrid"] as const) held[key] += t[key] * test.length;
    console.log(`| ${f} | k ${s.k}, vector weight ${s.w} | ${mean(table[best]!, train).toFixed(3)} | ${t.vec.toFixed(3)} | ${t.bm25.toFixed(3)} | ${t.hybrid.toFixed(3)} |`);
  }
  const n = questions.length;
  console.log(`| all folds | | | ${(held.vec / n).toFixed(3)} | ${(held.bm25 / n).toFixed(3)} | ${(held.hybrid / n).toFixed(3)} |`);
  const all = questions.map((_, i) => i);
  console.log("\nMRR on all questions per setting (rows k, columns vector weight):");
  console.log(`| k \\ w | ${WEIGHTS.join(" | ")} |\n|---|${WEIGHTS.map(() => "---|").join("")}`);
  KS.forEach((k, ki) => console.log(`| ${k} | ${WEIGHTS.map((_, wi) => mean(table[ki * WEIGHTS.length + wi]!, all).toFixed(3)).join(" | ")} |`));
}
