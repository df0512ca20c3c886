// Local GGUF tier on the shared stories260K model (plain completion, no chat template, so the
// generic chat wrapper is exercised). Answer quality is not the point: loading, streaming,
// token accounting, cancellation and the bounded queue are.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createModelRegistry, type ModelRegistry } from "../../src/models/registry.ts";
import { scanModels } from "../../src/models/scan.ts";
import { ModelBusyError } from "../../src/models/errors.ts";
import { tempModelsDir, until, withStories } from "./helpers/temp-models.ts";
import type { AnswerRequest } from "../../src/models/types.ts";

let tmp: Awaited<ReturnType<typeof tempModelsDir>>;
let reg: ModelRegistry;

beforeAll(async () => {
  tmp = await tempModelsDir();
  await withStories(tmp.dir);
  reg = await createModelRegistry({ modelsDir: tmp.dir, threads: 1, maxSequences: 1, queueTimeoutMs: 100 });
});
afterAll(async () => {
  await reg.close();
  await tmp.cleanup();
});

const req = (extra: Partial<AnswerRequest> = {}): AnswerRequest => ({
  question: "What did Lily see?",
  lang: "en",
  system: "Once upon a time",
  history: [],
  passages: [{ ref: 1, text: "Lily saw a big red ball in the park." }],
  temperature: 0,
  maxTokens: 24,
  ...extra,
});

describe("local GGUF tier", () => {
  test("scan lists the GGUF with its training context", async () => {
    expect(await scanModels(tmp.dir)).toEqual([
      { id: "stories260K", role: "chat", tier: "local", default: true, file: "stories260K.gguf", contextLength: 2048, description: `GGUF model "llama" (node-llama-cpp)` },
    ]);
  });

  test("becomes the default chat model; listed as an LLM reranker too; embeddings stay builtin", () => {
    const byRole = reg.list().map(({ id, role, default: d }) => `${role}:${id}:${d}`);
    expect(byRole).toEqual([
      "chat:stories260K:true",
      "rerank:stories260K:false",
      "embedding:builtin-hash-embed:true",
      "chat:builtin-extractive:false",
      "rerank:builtin-lexical-rerank:false",
    ]);
    expect(reg.answerer().id).toBe("stories260K");
    expect(reg.embedder().id).toBe("builtin-hash-embed");
    expect(reg.has("stories260K", "rerank")).toBe(true);
  });

  test("token counter uses the model's tokenizer, not the approximation", () => {
    const t = reg.tokens();
    expect(t.id).toBe("stories260K");
    // the 512-token vocabulary splits words into many pieces: far above ~1 per 4 chars
    expect(t.count("Once upon a time there was a little girl")).toBeGreaterThan(10);
  });

  test("generates, streams tokens that rebuild the text, counts tokens", async () => {
    const chunks: string[] = [];
    const r = await reg.answerer().answer(req({ onToken: (t) => chunks.push(t) }));
    expect(r.model).toBe("stories260K");
    expect(r.text.length).toBeGreaterThan(0);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("").trim()).toBe(r.text);
    expect(r.completionTokens).toBeGreaterThan(0);
    expect(r.completionTokens).toBeLessThanOrEqual(24);
    expect(r.promptTokens).toBeGreaterThan(20);
  });

  test("temperature 0 is deterministic", async () => {
    const a = await reg.answerer().answer(req());
    const b = await reg.answerer().answer(req());
    expect(a.text).toBe(b.text);
  });

  test("AbortSignal cancels a running generation", async () => {
    const ac = new AbortController();
    let n = 0;
    const p = reg.answerer().answer(req({ maxTokens: 400, signal: ac.signal, onToken: () => { if (++n === 3) ac.abort(new Error("client went away")); } }));
    await expect(p).rejects.toThrow("client went away");
    expect(n).toBeLessThan(20);
  });

  test("a request waiting longer than queueTimeoutMs gets ModelBusyError, then the slot frees", async () => {
    let streamed = 0;
    const ac = new AbortController();
    const first = reg.answerer().answer(req({ maxTokens: 400, signal: ac.signal, onToken: () => streamed++ }));
    await until(() => streamed > 0);
    await expect(reg.answerer().answer(req())).rejects.toBeInstanceOf(ModelBusyError);
    ac.abort(new Error("stop"));
    await expect(first).rejects.toThrow("stop");
    const again = await reg.answerer().answer(req({ maxTokens: 4 }));
    expect(again.completionTokens).toBeGreaterThan(0);
  });

  test("summariser and LLM reranker run through the same model", async () => {
    const s = await reg.summariser().summarise("Lily went to the park. She saw a dog.", "en");
    expect(s.completionTokens).toBeGreaterThan(0);
    const scores = await reg.reranker("stories260K")!.rerank("dog", ["a dog", "a cat"]);
    expect(scores.length).toBe(2);
    for (const x of scores) expect(x >= 0 && x <= 10).toBe(true);
  });
});
