// ONNX cross-encoder re-ranker (local tier) on a tiny sequence-classification model written by the
// test: its score is query/passage word overlap plus a per-word boost, so rankings are predictable.
// Unit level through the registry, then end to end: an agent with rerankModel naming it decides
// which document an answer stands on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UnknownModelError } from "../../src/models/errors.ts";
import { createModelRegistry, type ModelRegistry } from "../../src/models/registry.ts";
import { scanModels } from "../../src/models/scan.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { upload } from "../tiers/scenario.ts";
import { tempModelsDir } from "./helpers/temp-models.ts";
import { writeTinyCrossEncoder, type TinyCrossEncoder } from "./helpers/tiny-cross-encoder.ts";

const QUESTION = "Where does the island ferry leave from?";
// NORTH repeats the question's words (lexical rankers prefer it); SOUTH names the kiosk, the word
// the cross-encoder is built to value.
const NORTH = "# Ferry\n\nThe island ferry leaves from the old stone pier, and the island ferry leaves every hour.\n";
const SOUTH = "# Ferry\n\nThe island ferry leaves from the harbour kiosk.\n";
const WORDS = [...new Set([QUESTION, NORTH, SOUTH].join(" ").toLowerCase().match(/[a-z]+/g)!)];
const CE_ID = "tiny-cross-encoder";

let tmp: Awaited<ReturnType<typeof tempModelsDir>>;
let ce: TinyCrossEncoder;
let generic: TinyCrossEncoder;

beforeAll(async () => {
  tmp = await tempModelsDir();
  ce = await writeTinyCrossEncoder(tmp.dir, CE_ID, WORDS, { boost: { kiosk: 10 } });
  // Same model shipped with a generic tokenizer class: transformers.js returns no segment ids for it unless asked.
  generic = await writeTinyCrossEncoder(tmp.dir, "tiny-ce-generic", WORDS, { boost: { kiosk: 10 }, tokenizerClass: "PreTrainedTokenizerFast" });
  // A two-label classifier (sentiment-like) is neither a re-ranker nor an embedder.
  await writeTinyCrossEncoder(tmp.dir, "tiny-two-labels", WORDS, { config: { id2label: { "0": "NEGATIVE", "1": "POSITIVE" } } });
});
afterAll(async () => { await tmp.cleanup(); });

describe("ONNX cross-encoder through the registry", () => {
  let reg: ModelRegistry;
  beforeAll(async () => { reg = await createModelRegistry({ modelsDir: tmp.dir, threads: 1, maxSequences: 1, queueTimeoutMs: 100 }); });
  afterAll(async () => { await reg?.close(); });

  test("scan lists a single-label sequence classifier as a rerank model, never as an embedder", async () => {
    const infos = await scanModels(tmp.dir);
    expect(infos).toEqual([
      { id: "tiny-ce-generic", role: "rerank", tier: "local", default: false, contextLength: 128, licence: "apache-2.0", file: "tiny-ce-generic/onnx/model.onnx", description: "ONNX cross-encoder re-ranker (transformers.js)" },
      { id: CE_ID, role: "rerank", tier: "local", default: false, contextLength: 128, licence: "apache-2.0", file: `${CE_ID}/onnx/model.onnx`, description: "ONNX cross-encoder re-ranker (transformers.js)" },
    ]);
    expect(reg.has(CE_ID, "rerank")).toBe(true);
    expect(reg.has(CE_ID, "embedding")).toBe(false);
    expect(reg.has("tiny-two-labels", "embedding")).toBe(false);
    expect(reg.has("tiny-two-labels", "rerank")).toBe(false);
    // the built-in embedder stays the default: a cross-encoder cannot embed
    expect(reg.embedder().id).toBe("builtin-hash-embed");
    expect(reg.list().filter((m) => m.default).map((m) => `${m.role}:${m.id}`)).toEqual(["embedding:builtin-hash-embed", "chat:builtin-extractive"]);
  });

  test("scores each (query, passage) pair exactly as the weights say, so the kiosk passage ranks first", async () => {
    const r = reg.reranker(CE_ID)!;
    expect(r.id).toBe(CE_ID);
    const passages = [NORTH, SOUTH, "Nothing relevant here.", ""];
    const scores = await r.rerank(QUESTION, passages);
    const expected = passages.map((p) => ce.score(QUESTION, p));
    // overlap alone would favour NORTH; the boost puts SOUTH ahead
    expect(expected[0]).toBeGreaterThan(ce.score(QUESTION, SOUTH) - 10);
    expect(expected[1]).toBeGreaterThan(expected[0]!);
    expect(scores).toHaveLength(4);
    scores.forEach((s, i) => expect(s).toBeCloseTo(expected[i]!, 4));
    const order = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s).map((x) => x.i);
    expect(order).toEqual([1, 0, 2, 3]);
    // the query matters, not just the passage: a query sharing no word with either scores only the boost
    expect(await r.rerank("kiosk", [NORTH, SOUTH])).toEqual([0, 11]);
    expect(await r.rerank(QUESTION, [])).toEqual([]);
  });

  test("segment ids reach the model even when the tokenizer class does not return them by default", async () => {
    const scores = await reg.reranker("tiny-ce-generic")!.rerank(QUESTION, [NORTH, SOUTH]);
    scores.forEach((s, i) => expect(s).toBeCloseTo(generic.score(QUESTION, [NORTH, SOUTH][i]!), 4));
  });

  test("a model that is not installed is refused", () => {
    expect(() => reg.reranker("tiny-two-labels")).toThrow(UnknownModelError);
  });
});

describe("cross-encoder re-ranking end to end over HTTP", () => {
  let k: Kbqa;
  let org: Org;
  let sessionId: string;
  let northId: string;
  let southId: string;

  beforeAll(async () => {
    k = await startKbqa({ modelsDir: tmp.dir });
    org = await k.org();
    const corpus = await org.api("POST", "/v1/corpus/", { name: "ferries" });
    expect(corpus.status).toBe(200);
    northId = await upload(k, org, corpus.body.id, "north.md", NORTH, "text/markdown");
    southId = await upload(k, org, corpus.body.id, "south.md", SOUTH, "text/markdown");
    const s = await org.api("POST", "/v1/session/", { corpusIds: [corpus.body.id] });
    expect(s.status).toBe(200);
    sessionId = s.body.id;
  });
  afterAll(async () => { await k?.stop(); });

  const agent = async (body: Record<string, unknown>) => {
    const a = await org.api("POST", "/v1/agent/", { name: "agent-" + crypto.randomUUID().slice(0, 8), ...body });
    expect(a.status).toBe(200);
    return a.body.id as string;
  };
  /** The documents the answer to QUESTION on this agent stands on. */
  const attachedDocs = async (agentId: string) => {
    const q = await org.api("GET", `/v1/post/q?${new URLSearchParams({ sessionId, body: QUESTION, agentId })}`);
    expect(q.status).toBe(200);
    const att = await org.api("GET", `/v1/post/attachment/${q.body.answer.id}`);
    expect(att.status).toBe(200);
    return [...new Set((att.body as { docId: string }[]).map((a) => a.docId))].sort();
  };

  test("GET /v1/config/model lists the cross-encoder with role rerank", async () => {
    const m = await org.api("GET", "/v1/config/model");
    expect(m.status).toBe(200);
    const rows = (m.body.items as { id: string; role: string }[]).filter((i) => i.id === CE_ID);
    expect(rows.map((r) => r.role)).toEqual(["rerank"]);
  });

  test("with rerankTopK 1 the answer stands only on the document the cross-encoder prefers", async () => {
    const id = await agent({ rerank: true, rerankModel: CE_ID, rerankTopK: 1 });
    expect(await attachedDocs(id)).toEqual([southId]);
  });

  test("the choice is the cross-encoder's: the lexical re-ranker keeps the other document, no re-ranking keeps both", async () => {
    const lexical = await agent({ rerank: true, rerankModel: "builtin-lexical-rerank", rerankTopK: 1 });
    expect(await attachedDocs(lexical)).toEqual([northId]);
    const plain = await agent({ rerank: false, rerankModel: CE_ID, rerankTopK: 1 });
    expect(await attachedDocs(plain)).toEqual([northId, southId].sort());
  });

  test("an agent naming a rerank model that is not installed → 400 on create", async () => {
    for (const rerankModel of ["not-installed-cross-encoder", "tiny-two-labels", "builtin-hash-embed"]) {
      const a = await org.api("POST", "/v1/agent/", { name: "bad-" + rerankModel, rerank: true, rerankModel });
      expect(a.status).toBe(400);
      expect(a.body.message).toContain("rerankModel");
    }
  });
});
