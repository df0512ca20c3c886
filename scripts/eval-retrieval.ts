// Retrieval quality of the query pipeline's retrieval step, per mode, on a fixed question set
// whose answers sit on known pages (scripts/eval/corpus.ts).
//
//   bun scripts/eval-retrieval.ts [--topk 10] [--rrf-k 60] [--depth N]
//
// A question scores at the rank of the first retrieved chunk of the expected document whose
// pages include the expected page (what the answer's page citation would show). hit@1, hit@5
// and MRR over the top --topk; the built-in embedder and LanceDB's BM25, as a fresh server uses.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createBuiltinEmbedder } from "../src/models/builtin-embed.ts";
import type { ModelRegistry } from "../src/models/registry.ts";
import { retrieve, type RetrievalMode } from "../src/retrieval/retrieve.ts";
import { DOCS, QUESTIONS } from "./eval/corpus.ts";
import { loadCorpus } from "./eval/load.ts";

const { values } = parseArgs({ options: { topk: { type: "string", default: "10" }, "rrf-k": { type: "string", default: "60" }, depth: { type: "string" }, "vector-weight": { type: "string" } } });
const vectorWeight = values["vector-weight"] ? Number(values["vector-weight"]) : undefined;
const topK = Number(values.topk);
const rrfK = Number(values["rrf-k"]);
const depth = values.depth ? Number(values.depth) : undefined;

const dir = mkdtempSync(join(tmpdir(), "kbqa-eval-"));
const ORG = crypto.randomUUID();
const CORPUS = crypto.randomUUID();
try {
  const embedder = createBuiltinEmbedder();
  const models = { embedder: () => embedder } as unknown as ModelRegistry;
  const { db, vectors, docIds, chunks } = await loadCorpus(dir, ORG, CORPUS, DOCS, embedder);
  const ctx = { db, models, vectors };
  const rows: string[] = [];
  const misses: Record<string, string[]> = {};
  for (const mode of ["vector", "bm25", "hybrid"] as RetrievalMode[]) {
    let h1 = 0, h5 = 0, rr = 0;
    misses[mode] = [];
    for (const q of QUESTIONS) {
      const got = await retrieve(ctx, ORG, [CORPUS], q.q, { topK, mode, rrfK, depth, vectorWeight });
      const want = docIds.get(q.doc)!;
      const rank = got.findIndex((c) => c.documentId === want && c.pages.includes(q.page)) + 1;
      if (rank === 1) h1++;
      if (rank >= 1 && rank <= 5) h5++;
      if (rank >= 1) rr += 1 / rank;
      if (rank !== 1) misses[mode]!.push(`${q.q} → rank ${rank || "none"}`);
    }
    const n = QUESTIONS.length;
    rows.push(`| ${mode} | ${(h1 / n).toFixed(3)} | ${(h5 / n).toFixed(3)} | ${(rr / n).toFixed(3)} |`);
  }
  console.log(`${DOCS.length} documents, ${chunks} chunks, ${QUESTIONS.length} questions; embedder ${embedder.id}; topK ${topK}, RRF k ${rrfK}\n`);
  console.log("| retrieval | hit@1 | hit@5 | MRR |\n|---|---|---|---|\n" + rows.join("\n"));
  if (process.env.EVAL_VERBOSE) console.log(JSON.stringify(misses, null, 2));
  await vectors.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
