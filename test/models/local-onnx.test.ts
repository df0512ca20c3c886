// Local ONNX embedding tier on a tiny model written by the test (protobuf ModelProto, WordLevel
// tokenizer, BERT config), loaded by transformers.js with remote loading off.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createModelRegistry } from "../../src/models/registry.ts";
import { scanModels } from "../../src/models/scan.ts";
import { tempModelsDir } from "./helpers/temp-models.ts";
import { writeTinyOnnx, type TinyOnnx } from "./helpers/tiny-onnx.ts";

const WORDS = ["hello", "world", "cat", "dog", "query", "passage", ":"];
let tmp: Awaited<ReturnType<typeof tempModelsDir>>;
let mean: TinyOnnx, cls: TinyOnnx, e5: TinyOnnx;

beforeAll(async () => {
  tmp = await tempModelsDir();
  mean = await writeTinyOnnx(tmp.dir, "a-tiny-mean", WORDS);
  cls = await writeTinyOnnx(tmp.dir, "b-tiny-cls", WORDS, 8, { pooling: "cls" });
  e5 = await writeTinyOnnx(tmp.dir, "c-tiny-e5", WORDS);
});
afterAll(async () => { await tmp.cleanup(); });

/** Expected sentence vector computed by hand from the embedding table. */
function expected(m: TinyOnnx, tokens: string[], pooling: "mean" | "cls"): number[] {
  const ids = ["[CLS]", ...tokens, "[SEP]"].map((t) => m.vocab[t] ?? m.vocab["[UNK]"]!);
  const rows = (pooling === "cls" ? ids.slice(0, 1) : ids).map((id) => Array.from(m.table.subarray(id * m.dims, (id + 1) * m.dims)));
  const v = rows[0]!.map((_, j) => rows.reduce((s, r) => s + r[j]!, 0) / rows.length);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const close = (a: Float32Array, b: number[]) => {
  expect(a.length).toBe(b.length);
  a.forEach((x, i) => expect(x).toBeCloseTo(b[i]!, 5));
};

describe("local ONNX embeddings via transformers.js", () => {
  test("scan reads dims, context length and licence", async () => {
    const infos = await scanModels(tmp.dir);
    expect(infos[0]).toEqual({ id: "a-tiny-mean", role: "embedding", tier: "local", default: true, dims: 8, contextLength: 64, licence: "mit", file: "a-tiny-mean/onnx/model.onnx", description: "ONNX sentence-embedding model (transformers.js)" });
    expect(infos.map((i) => i.id)).toEqual(["a-tiny-mean", "b-tiny-cls", "c-tiny-e5"]);
    // The listing marks the one the registry takes from this folder, as `kbqa models list` shows it.
    expect(infos.map((i) => i.default)).toEqual([true, false, false]);
  });

  test("the first local embedding model becomes the default and embeds with mean pooling, normalised", async () => {
    const reg = await createModelRegistry({ modelsDir: tmp.dir, threads: 1, maxSequences: 1, queueTimeoutMs: 100 });
    const e = reg.embedder();
    expect(e.id).toBe("a-tiny-mean");
    expect(e.dims).toBe(8);
    // different lengths in one batch: padding must not leak into the mean
    const [a, b] = await e.embed(["Hello world", "cat"], "passage");
    close(a!, expected(mean, ["hello", "world"], "mean"));
    close(b!, expected(mean, ["cat"], "mean"));
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    expect(await e.embed([], "query")).toEqual([]);
    await reg.close();
  });

  test("1_Pooling/config.json selects CLS pooling", async () => {
    const { createLocalEmbedder } = await import("../../src/models/local-embed.ts");
    const { scanModelsDetailed } = await import("../../src/models/scan.ts");
    const m = (await scanModelsDetailed(tmp.dir)).find((x) => x.id === "b-tiny-cls")!;
    const [v] = await createLocalEmbedder(tmp.dir, m, 1).embed(["dog cat"], "passage");
    close(v!, expected(cls, [], "cls"));
  });

  test("e5 models get query:/passage: prefixes", async () => {
    const { createLocalEmbedder } = await import("../../src/models/local-embed.ts");
    const { scanModelsDetailed } = await import("../../src/models/scan.ts");
    const m = (await scanModelsDetailed(tmp.dir)).find((x) => x.id === "c-tiny-e5")!;
    const e = createLocalEmbedder(tmp.dir, m, 1);
    const [q] = await e.embed(["dog"], "query");
    const [p] = await e.embed(["dog"], "passage");
    close(q!, expected(e5, ["query", ":", "dog"], "mean"));
    close(p!, expected(e5, ["passage", ":", "dog"], "mean"));
  });
});
