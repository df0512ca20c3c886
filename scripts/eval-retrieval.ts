// Retrieval quality of the query pipeline's retrieval step, per mode, on a fixed question set
// whose answers sit on known pages (scripts/eval/corpus.ts).
//
//   bun scripts/eval-retrieval.ts [--topk 10] [--rrf-k N] [--vector-weight W] [--depth N] [--cv]
//
// A question scores at the rank of the first retrieved chunk of the expected document whose
// pages include the expected page (what the answer's page citation would show). hit@1, hit@5
// and MRR over the top --topk; the built-in embedder and LanceDB's BM25, as a fresh server uses.
// Figures are printed for every question, the original 64, each kind of added question, and the
// two halves of a fixed split (even / odd position in the list).
//
// --cv: 5-fold cross-validation of the fusion settings (RRF k × vector weight). For each fold the
// setting with the best MRR on the other four folds (ties: the grid's first, which starts at plain
// RRF) is scored on the held-out fold; the held-out MRR over all folds is what the choice is worth
// on questions it was not tuned on.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createBuiltinEmbedder } from "../src/models/builtin-embed.ts";
import type { ModelRegistry } from "../src/models/registry.ts";
import { retrieve, type RetrievalMode, type RetrievedChunk } from "../src/retrieval/retrieve.ts";
import { DOCS, QUESTIONS, type EvalQuestion } from "./eval/corpus.ts";
import { loadCorpus } from "./eval/load.ts";
import { crossValidate } from "./eval/cv.ts";

const { values } = parseArgs({
  options: {
    topk: { type: "string", default: "10" }, "rrf-k": { type: "string" }, depth: { type: "string" },
    "vector-weight": { type: "string" }, cv: { type: "boolean", default: false },
  },
});
const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
const topK = Number(values.topk);
const rrfK = num(values["rrf-k"]);
const vectorWeight = num(values["vector-weight"]);
const depth = num(values.depth);

const dir = mkdtempSync(join(tmpdir(), "kbqa-eval-"));
const ORG = crypto.randomUUID();
const CORPUS = crypto.randomUUID();
try {
  const embedder = createBuiltinEmbedder();
  const models = { embedder: () => embedder } as unknown as ModelRegistry;
  const { db, vectors, docIds, chunks } = await loadCorpus(dir, ORG, CORPUS, DOCS, embedder);
  const ctx = { db, models, vectors };
  const rankOf = (q: EvalQuestion, got: RetrievedChunk[]) =>
    got.findIndex((c) => c.documentId === docIds.get(q.doc) && c.pages.includes(q.page)) + 1;

  const modes: RetrievalMode[] = ["vector", "bm25", "hybrid"];
  const ranks = new Map<RetrievalMode, number[]>();
  for (const mode of modes) {
    const rs: number[] = [];
    for (const q of QUESTIONS) rs.push(rankOf(q, await retrieve(ctx, ORG, [CORPUS], q.q, { topK, mode, rrfK, depth, vectorWeight })));
    ranks.set(mode, rs);
  }
  const subsets: [string, (q: EvalQuestion, i: number) => boolean][] = [
    ["all", () => true],
    ["original", (q) => q.kind === "original"],
    ...(["inflection", "typo", "paraphrase"] as const).map((k) => [`added: ${k}`, (q: EvalQuestion) => q.kind === k] as [string, (q: EvalQuestion) => boolean]),
    ["split A (even)", (_q, i) => i % 2 === 0],
    ["split B (odd)", (_q, i) => i % 2 === 1],
  ];
  console.log(`${DOCS.length} documents, ${chunks} chunks, ${QUESTIONS.length} questions; embedder ${embedder.id}; topK ${topK}` +
    (rrfK !== undefined || vectorWeight !== undefined ? `; RRF k ${rrfK ?? "profile"}, vector weight ${vectorWeight ?? "profile"}` : "; fusion: embedder profile") + "\n");
  console.log("| questions | n | retrieval | hit@1 | hit@5 | MRR |\n|---|---|---|---|---|---|");
  for (const [name, pick] of subsets) {
    const idx = QUESTIONS.flatMap((q, i) => (pick(q, i) ? [i] : []));
    for (const mode of modes) {
      const rs = idx.map((i) => ranks.get(mode)![i]!);
      const n = rs.length;
      const h1 = rs.filter((r) => r === 1).length / n;
      const h5 = rs.filter((r) => r >= 1 && r <= 5).length / n;
      const mrr = rs.reduce((s, r) => s + (r ? 1 / r : 0), 0) / n;
      console.log(`| ${name} | ${n} | ${mode} | ${h1.toFixed(3)} | ${h5.toFixed(3)} | ${mrr.toFixed(3)} |`);
    }
  }
  if (process.env.EVAL_VERBOSE) {
    QUESTIONS.forEach((q, i) => {
      const r = modes.map((m) => ranks.get(m)![i]);
      if (r.some((x) => x !== 1)) console.log(`${i} [${q.kind}] vector ${r[0]} bm25 ${r[1]} hybrid ${r[2]}: ${q.q}`);
    });
  }
  if (values.cv) await crossValidate(ctx, ORG, CORPUS, QUESTIONS, topK, rankOf);
  await vectors.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
