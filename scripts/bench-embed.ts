// Embedding throughput (chunks/s) at batch sizes 1, 8, 32: built-in hash embedder vs the local
// ONNX tier (transformers.js) on a tiny model written to a temp folder. Same chunks for both.
// Run: bun scripts/bench-embed.ts
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBuiltinEmbedder } from "../src/models/builtin-embed.ts";
import { createLocalEmbedder } from "../src/models/local-embed.ts";
import { scanModelsDetailed } from "../src/models/scan.ts";
import { writeTinyOnnx } from "../test/models/helpers/tiny-onnx.ts";
import type { Embedder } from "../src/models/types.ts";

const SENTENCES = [
  "Employees accrue twenty five days of paid annual leave per calendar year.",
  "Unused leave may be carried over until the end of March of the following year.",
  "The Eiffel Tower was designed by the engineering company of Gustave Eiffel.",
  "Photosynthesis converts light energy into chemical energy in green plants.",
  "Requests must be approved by the line manager before the leave starts.",
  "Le télétravail est autorisé deux jours par semaine pour tous les salariés.",
];
// ~800-character chunks, like the ingest pipeline produces.
const CHUNKS = Array.from({ length: 96 }, (_, i) => Array.from({ length: 11 }, (_, j) => SENTENCES[(i + j) % SENTENCES.length]).join(" "));

async function throughput(e: Embedder, batch: number, minMs = 1500): Promise<number> {
  await e.embed(CHUNKS.slice(0, batch), "passage"); // warm-up (model load, JIT)
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    for (let i = 0; i + batch <= CHUNKS.length; i += batch) {
      await e.embed(CHUNKS.slice(i, i + batch), "passage");
      n += batch;
    }
  }
  return (n / (performance.now() - start)) * 1000;
}

const dir = await mkdtemp(join(tmpdir(), "kbqa-bench-"));
try {
  const vocab = [...new Set(CHUNKS.join(" ").toLowerCase().split(/\s+/))];
  await writeTinyOnnx(dir, "tiny-embed", vocab, 384);
  const m = (await scanModelsDetailed(dir))[0]!;
  const embedders = [createBuiltinEmbedder(), createLocalEmbedder(dir, m, 1)];
  console.log(`chunks of ~${CHUNKS[0]!.length} chars; chunks/s`);
  console.log("model".padEnd(28) + [1, 8, 32].map((b) => `batch ${b}`.padStart(12)).join(""));
  for (const e of embedders) {
    const row: string[] = [];
    for (const b of [1, 8, 32]) row.push((await throughput(e, b)).toFixed(0).padStart(12));
    console.log(`${e.id} (${e.dims}d)`.padEnd(28) + row.join(""));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
