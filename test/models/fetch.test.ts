import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ChecksumError, fetchModels, formatProgressBar } from "../../src/models/fetch.ts";
import type { RecommendedModel } from "../../src/models/recommended.ts";
import { startHubStub } from "./helpers/hub-stub.ts";
import { tempModelsDir } from "./helpers/temp-models.ts";

const big = new Uint8Array(randomBytes(300_000));
const cfg = new TextEncoder().encode(JSON.stringify({ model_type: "bert", hidden_size: 8 }));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

const hub = await startHubStub({
  "/acme/embed/resolve/main/config.json": cfg,
  "/acme/embed/resolve/main/onnx/model_quantized.onnx": big,
  "/acme/chat-GGUF/resolve/v1/chat-q4.gguf": big.subarray(0, 100_000),
  "/acme/bad/resolve/main/bad.bin": new TextEncoder().encode("tampered"),
}, { wrongEtag: new Set(["/acme/embed/resolve/main/config.json"]) });
afterAll(() => hub.stop());

const MODELS: RecommendedModel[] = [
  { name: "embed", repo: "acme/embed", revision: "main", target: "embed", role: "embedding", licence: "mit",
    files: [{ path: "config.json", sha256: sha(cfg) /* list hash wins over the hub's wrong etag */ }, { path: "onnx/model_quantized.onnx" }] },
  { name: "chat", repo: "acme/chat-GGUF", revision: "v1", target: "", role: "chat", licence: "mit", files: [{ path: "chat-q4.gguf" }] },
  { name: "bad", repo: "acme/bad", revision: "main", target: "", role: "chat", licence: "mit", files: [{ path: "bad.bin", sha256: sha(new TextEncoder().encode("original")) }] },
];

let tmp: Awaited<ReturnType<typeof tempModelsDir>>;
beforeEach(async () => { tmp = await tempModelsDir(); hub.requests.length = 0; });
afterEach(async () => { await tmp.cleanup(); });

describe("fetchModels against a local hub", () => {
  test("downloads into the models layout, resuming with Range after a dropped connection", async () => {
    hub.dropNext.add("/acme/embed/resolve/main/onnx/model_quantized.onnx");
    const progress: { file: string; done: number; total: number }[] = [];
    await fetchModels({ dir: tmp.dir, hubUrl: hub.url, names: ["embed", "chat"], models: MODELS, onProgress: (p) => progress.push(p) });
    expect(new Uint8Array(await readFile(join(tmp.dir, "embed/onnx/model_quantized.onnx")))).toEqual(big);
    expect(await readFile(join(tmp.dir, "embed/config.json"), "utf8")).toBe(new TextDecoder().decode(cfg));
    expect((await readFile(join(tmp.dir, "chat-q4.gguf"))).length).toBe(100_000);
    const gets = hub.requests.filter((r) => r.method === "GET" && r.path.endsWith("model_quantized.onnx"));
    expect(gets.length).toBe(2);
    expect(gets[0]!.range).toBeNull();
    expect(gets[1]!.range).toBe(`bytes=${big.length / 2}-`);
    expect((await readdir(join(tmp.dir, "embed/onnx"))).sort()).toEqual(["model_quantized.onnx"]);
    expect(progress.filter((p) => p.file === "embed/onnx/model_quantized.onnx").at(-1)).toEqual({ file: "embed/onnx/model_quantized.onnx", done: big.length, total: big.length });
  });

  test("resumes a .part an earlier run left in the staging folder and skips files already installed", async () => {
    await mkdir(join(tmp.dir, ".fetching/chat"), { recursive: true });
    await writeFile(join(tmp.dir, ".fetching/chat/chat-q4.gguf.part"), big.subarray(0, 40_000));
    await fetchModels({ dir: tmp.dir, hubUrl: hub.url, names: ["chat"], models: MODELS });
    expect(hub.requests.filter((r) => r.method === "GET").map((r) => r.range)).toEqual(["bytes=40000-"]);
    expect(new Uint8Array(await readFile(join(tmp.dir, "chat-q4.gguf")))).toEqual(big.subarray(0, 100_000));
    expect(await readdir(tmp.dir)).toEqual(["chat-q4.gguf"]);
    hub.requests.length = 0;
    await fetchModels({ dir: tmp.dir, hubUrl: hub.url, names: ["chat"], models: MODELS });
    expect(hub.requests.filter((r) => r.method === "GET")).toEqual([]);
  });

  test("a checksum mismatch fails and leaves neither the file nor the .part", async () => {
    const err = await fetchModels({ dir: tmp.dir, hubUrl: hub.url, names: ["bad"], models: MODELS }).catch((e) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect(err.actual).toBe(sha(new TextEncoder().encode("tampered")));
    expect(await readdir(tmp.dir)).toEqual([]);
  });

  test("without a listed hash the hub's x-linked-etag is verified", async () => {
    const models: RecommendedModel[] = [{ ...MODELS[0]!, files: [{ path: "config.json" }] }];
    const err = await fetchModels({ dir: tmp.dir, hubUrl: hub.url, models }).catch((e) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect(err.expected).toBe("0".repeat(64));
  });

  test("unknown names are rejected before any download", async () => {
    await expect(fetchModels({ dir: tmp.dir, hubUrl: hub.url, names: ["nope"], models: MODELS })).rejects.toThrow("Unknown model name(s): nope");
    expect(hub.requests).toEqual([]);
  });
});

test("formatProgressBar", () => {
  expect(formatProgressBar({ file: "a.gguf", done: 512 * 1024, total: 1024 * 1024 }, 10)).toBe("a.gguf [#####-----] 50% 512.0 KB/1.0 MB");
  expect(formatProgressBar({ file: "a.gguf", done: 100, total: 0 })).toBe("a.gguf 100 B");
});
