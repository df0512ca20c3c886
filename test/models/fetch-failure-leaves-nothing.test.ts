// A failed `models fetch` must not leave a model folder behind, empty or half filled: a later
// start (or a later file dropped in by hand) could take it for an installed model. Bytes already
// downloaded may stay, hidden, so the next run resumes instead of starting a large file over.
import { afterAll, afterEach, beforeEach, expect, test } from "bun:test";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fetchModels } from "../../src/models/fetch.ts";
import { scanModels } from "../../src/models/scan.ts";
import type { RecommendedModel } from "../../src/models/recommended.ts";
import { runCli } from "../helpers/server.ts";
import { startHubStub } from "./helpers/hub-stub.ts";
import { tempModelsDir } from "./helpers/temp-models.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const onnx = new Uint8Array(200_000).fill(7);
const files: Record<string, Uint8Array> = {
  "/acme/embed/resolve/main/config.json": enc(JSON.stringify({ model_type: "bert", hidden_size: 8 })),
  "/acme/embed/resolve/main/tokenizer.json": enc("{}"),
};
const hub = await startHubStub(files);
const MODELS: RecommendedModel[] = [{
  name: "embed", repo: "acme/embed", revision: "main", target: "embed", role: "embedding", licence: "mit",
  files: [{ path: "config.json" }, { path: "tokenizer.json" }, { path: "onnx/model_quantized.onnx" }],
}];

// Stands for a network that is down: accepts, then hangs up without a byte of HTTP.
const hangUp = createServer((sock) => sock.destroy());
await new Promise<void>((r) => hangUp.listen(0, "127.0.0.1", r));
const hangUpUrl = `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`;
afterAll(() => { hub.stop(); hangUp.close(); });

let tmp: Awaited<ReturnType<typeof tempModelsDir>>;
beforeEach(async () => { tmp = await tempModelsDir(); });
afterEach(async () => { await tmp.cleanup(); delete files["/acme/embed/resolve/main/onnx/model_quantized.onnx"]; });

test("CLI: a hub that hangs up exits 1 in one line and leaves the models folder empty", async () => {
  const r = await runCli(["models", "fetch", "--hub-url", hangUpUrl, "--models", tmp.dir]);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toMatch(new RegExp(`^kbqa models fetch: could not connect to ${hangUpUrl} \\(.+\\)\\n$`));
  expect(await readdir(tmp.dir)).toEqual([]);
});

test("a file missing on the hub: the files fetched before it do not make a model folder", async () => {
  const err = await fetchModels({ dir: tmp.dir, hubUrl: hub.url, models: MODELS }).catch((e) => e);
  expect(String(err?.message)).toMatch(/answered 404$/);
  expect(await readdir(tmp.dir)).toEqual([".fetching"]);
  expect(await scanModels(tmp.dir)).toEqual([]);
  // Once the hub has it, the next run fetches only that file and installs the model whole.
  files["/acme/embed/resolve/main/onnx/model_quantized.onnx"] = onnx;
  hub.requests.length = 0;
  await fetchModels({ dir: tmp.dir, hubUrl: hub.url, models: MODELS });
  expect(hub.requests.filter((q) => q.method === "GET").map((q) => q.path)).toEqual(["/acme/embed/resolve/main/onnx/model_quantized.onnx"]);
  expect(await readdir(tmp.dir)).toEqual(["embed"]);
  expect((await scanModels(tmp.dir)).map((m) => m.id)).toEqual(["embed"]);
});

test("a connection dropped mid-file, retries spent: the part stays hidden and the next run resumes it", async () => {
  files["/acme/embed/resolve/main/onnx/model_quantized.onnx"] = onnx;
  hub.dropNext.add("/acme/embed/resolve/main/onnx/model_quantized.onnx");
  hub.requests.length = 0;
  expect(await fetchModels({ dir: tmp.dir, hubUrl: hub.url, models: MODELS, retries: 1 }).then(() => "done", () => "failed")).toBe("failed");
  expect(await readdir(tmp.dir)).toEqual([".fetching"]);
  expect(await scanModels(tmp.dir)).toEqual([]);
  hub.requests.length = 0;
  await fetchModels({ dir: tmp.dir, hubUrl: hub.url, models: MODELS });
  expect(hub.requests.filter((q) => q.method === "GET").map((q) => q.range)).toEqual([`bytes=${onnx.length / 2}-`]);
  expect(await readdir(tmp.dir)).toEqual(["embed"]);
});
