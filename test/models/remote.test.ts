import { afterAll, describe, expect, test } from "bun:test";
import { createModelRegistry } from "../../src/models/registry.ts";
import { RemoteModelError } from "../../src/models/errors.ts";
import { startOpenAIStub } from "./helpers/openai-stub.ts";

const stub = startOpenAIStub({
  apiKey: "sk-test",
  reply: (body) => {
    const user: string = body.messages.at(-1).content;
    if (user.includes("Question: What is the capital?")) return "The capital is Paris [2].";
    if (user.includes("how relevant")) return user.includes("Paris") ? "9" : "1";
    return "Les documents ne contiennent pas la réponse à cette question.";
  },
});
afterAll(() => stub.stop());

const cfg = (apiKey = "sk-test") => ({
  modelsDir: "/nonexistent", threads: 1, maxSequences: 2, queueTimeoutMs: 1000,
  remote: { url: stub.url, apiKey, chatModel: "tiny-chat", embeddingModel: "tiny-embed" },
});

describe("remote OpenAI-compatible tier", () => {
  test("configured remote models are listed and are the defaults", async () => {
    const reg = await createModelRegistry(cfg());
    expect(reg.list().filter((m) => m.default).map((m) => `${m.role}:${m.id}`)).toEqual(["chat:remote:tiny-chat", "embedding:remote:tiny-embed"]);
    expect(reg.has("remote:tiny-chat", "rerank")).toBe(true);
    expect(reg.has("builtin-extractive", "chat")).toBe(true);
  });

  test("embeddings: bearer key, order by index, dims learnt", async () => {
    const reg = await createModelRegistry(cfg());
    const e = reg.embedder();
    const out = await e.embed(["alpha", "beta gamma"], "passage");
    expect(out.length).toBe(2);
    expect(out[0]!.length).toBe(16);
    expect(e.dims).toBe(16);
    const last = stub.calls.at(-1)!;
    expect(last).toEqual({ path: "/v1/embeddings", auth: "Bearer sk-test", body: { model: "tiny-embed", input: ["alpha", "beta gamma"], encoding_format: "float" } });
    const [again] = await e.embed(["alpha"], "query");
    expect(Array.from(again!)).toEqual(Array.from(out[0]!));
  });

  test("chat streams SSE deltas, parses citations and usage", async () => {
    const reg = await createModelRegistry(cfg());
    const chunks: string[] = [];
    const r = await reg.answerer().answer({
      question: "What is the capital?", lang: "en", system: "Be brief.", history: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }],
      passages: [{ ref: 1, text: "Berlin is big." }, { ref: 2, text: "Paris is the capital." }], temperature: 0.2, onToken: (t) => chunks.push(t),
    });
    expect(r).toEqual({ text: "The capital is Paris [2].", cited: [2], promptTokens: 42, completionTokens: 5, model: "remote:tiny-chat", answered: true });
    expect(chunks).toEqual(["The ", "capital ", "is ", "Paris ", "[2]."]);
    const body = stub.calls.at(-1)!.body;
    expect(body.stream).toBe(true);
    expect(body.temperature).toBe(0.2);
    expect(body.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });

  test("a not-found reply is answered:false with no citations", async () => {
    const reg = await createModelRegistry(cfg());
    const r = await reg.answerer().answer({ question: "Quoi ?", lang: "fr", system: "", history: [], passages: [{ ref: 1, text: "x [1]" }] });
    expect(r.answered).toBe(false);
    expect(r.cited).toEqual([]);
  });

  test("LLM rerank over the remote chat model", async () => {
    const reg = await createModelRegistry(cfg());
    expect(await reg.reranker("remote:tiny-chat")!.rerank("capital", ["Paris is the capital", "Berlin"])).toEqual([9, 1]);
  });

  test("a summary is asked for with a bounded reply, like the local models' (it is one chunk and one vector)", async () => {
    const reg = await createModelRegistry(cfg());
    await reg.summariser().summarise("# Leave\n\nEmployees get 25 days.", "en");
    const body = stub.calls.at(-1)!.body;
    expect([body.max_tokens, body.messages[0].role, body.messages[1].content]).toEqual([256, "system", "# Leave\n\nEmployees get 25 days."]);
  });

  test("a wrong key surfaces as RemoteModelError with the status", async () => {
    const reg = await createModelRegistry(cfg("wrong"));
    const err = await reg.embedder().embed(["x"], "query").catch((e) => e);
    expect(err).toBeInstanceOf(RemoteModelError);
    expect(err.status).toBe(401);
  });
});
