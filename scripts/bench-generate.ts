// Overhead of the service's generation wrapper (GgufModel.generate: slot queue, per-request
// context sized to the prompt, chat session, token metering) against calling node-llama-cpp
// directly (one context created up front, a chat session per run), same model, same prompt,
// same number of tokens at temperature 0. Also threads 1 vs 2 for the wrapper.
// Run: bun scripts/bench-generate.ts [path/to/model.gguf] (default ../shared/models/stories260K.gguf)
import { GeneralChatWrapper, LlamaChatSession } from "node-llama-cpp";
import { join } from "node:path";
import { contextBucket, GgufModel, sharedLlama } from "../src/models/llama-runtime.ts";

// The default is the tiny model in ../shared/models beside the checkout, wherever it was cloned.
const MODEL = process.argv[2] ?? join(import.meta.dir, "..", "..", "shared", "models", "stories260K.gguf");
const SYSTEM = "You tell short stories for children.";
const USER = "Once upon a time, Lily went to the park with her dog.";
const TOKENS = 120;
const RUNS = 15;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function direct(threads: number) {
  const llama = await sharedLlama();
  const model = await llama.loadModel({ modelPath: MODEL, gpuLayers: 0 });
  // same context size the wrapper picks for this prompt, so only the wrapper's work differs
  const contextSize = contextBucket(model.tokenize(SYSTEM + "\n" + USER).length + 64 + TOKENS, model.trainContextSize);
  const context = await model.createContext({ contextSize, sequences: 1, threads });
  const sequence = context.getSequence();
  const times: number[] = [];
  let text = "";
  let tokens = 0;
  for (let i = 0; i < RUNS + 2; i++) {
    await sequence.clearHistory();
    const before = sequence.tokenMeter.usedOutputTokens;
    const session = new LlamaChatSession({ contextSequence: sequence, chatWrapper: new GeneralChatWrapper(), systemPrompt: SYSTEM });
    const t = performance.now();
    text = await session.prompt(USER, { temperature: 0, maxTokens: TOKENS });
    if (i >= 2) times.push(performance.now() - t); // first runs warm caches
    tokens = sequence.tokenMeter.usedOutputTokens - before;
    session.dispose({ disposeSequence: false });
  }
  await context.dispose();
  await model.dispose();
  return { ms: median(times), text: text.trim(), tokens };
}

async function wrapper(threads: number) {
  const m = new GgufModel("bench", MODEL, { threads, maxSequences: 1, queueTimeoutMs: 60_000 });
  const times: number[] = [];
  let r = { text: "", completionTokens: 0 };
  for (let i = 0; i < RUNS + 2; i++) {
    const t = performance.now();
    r = await m.generate({ system: SYSTEM, history: [], user: USER, temperature: 0, maxTokens: TOKENS });
    if (i >= 2) times.push(performance.now() - t);
  }
  await m.close();
  return { ms: median(times), text: r.text, tokens: r.completionTokens };
}

// interleaved so drift on this shared machine hits both sides
const d1 = await direct(1);
const w1 = await wrapper(1);
const d2 = await direct(2);
const w2 = await wrapper(2);
const d1b = await direct(1);
const w1b = await wrapper(1);
d1.ms = Math.min(d1.ms, d1b.ms);
w1.ms = Math.min(w1.ms, w1b.ms);
console.log(`model ${MODEL}, ${TOKENS} max tokens, median of ${RUNS} runs`);
console.log(`direct  threads=1: ${d1.ms.toFixed(1)} ms, ${d1.tokens} tokens (${((d1.tokens / d1.ms) * 1000).toFixed(0)} tok/s)`);
console.log(`wrapper threads=1: ${w1.ms.toFixed(1)} ms, ${w1.tokens} tokens (${((w1.tokens / w1.ms) * 1000).toFixed(0)} tok/s)`);
console.log(`direct  threads=2: ${d2.ms.toFixed(1)} ms, ${d2.tokens} tokens`);
console.log(`wrapper threads=2: ${w2.ms.toFixed(1)} ms, ${w2.tokens} tokens`);
console.log(`same text: ${d1.text === w1.text}; wrapper overhead threads=1: ${(((w1.ms - d1.ms) / d1.ms) * 100).toFixed(1)}%`);
