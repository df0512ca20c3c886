// The CI check: the executable, alone in an empty folder, with an empty environment and
// (where `unshare -n` works) no network, serves a full round trip over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeTinyOnnx } from "../models/helpers/tiny-onnx.ts";
import { STORIES_GGUF } from "../models/helpers/temp-models.ts";
import { bareCopy, canCutNetwork, freshExecutable, withoutNetwork } from "../../scripts/build/exe.ts";

const STORIES = STORIES_GGUF;
let work: string;
let report: Record<string, any>;
const cut = canCutNetwork();

beforeAll(async () => {
  const exe = await freshExecutable();
  if (exe.built) console.error(`built dist/kbqa in ${exe.buildMs} ms`);
  work = bareCopy(exe.path);
  expect(readdirSync(work)).toEqual(["kbqa"]); // nothing else: no lib/, no node_modules
  // Tiny models for the selftest only; the server itself runs with ./models absent (built-in tier).
  const models = join(work, "selftest-models");
  mkdirSync(models);
  await writeTinyOnnx(models, "tiny-embed", ["hello", "world"]);
  if (existsSync(STORIES)) copyFileSync(STORIES, join(models, "stories260K.gguf"));
  const p = Bun.spawn(withoutNetwork([process.execPath, join(import.meta.dir, "driver.ts"), work], cut), { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`driver exited ${code}:\n${err}\n${out}`);
  report = JSON.parse(out.trim().split("\n").pop()!);
  if (report.error) console.error(`round trip error: ${report.error}\nserver stderr:\n${report.serverStderr}`);
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("dist/kbqa alone in an empty folder, env -i" + (cut ? ", unshare -n" : " (unshare -n unavailable: network not cut)"), () => {
  test("the network is cut off where unshare -n works", () => {
    if (cut) expect(report.interfaces).toEqual(["lo"]);
    else expect(report.interfaces.length).toBeGreaterThan(0);
  });

  test("selftest loads LanceDB, ONNX Runtime (transformers.js), llama.cpp and canvas from inside the executable", () => {
    const r = report.selftest.result;
    expect(report.selftest.code).toBe(0);
    expect(r.compiled).toBe(true);
    expect(r.checks.lancedb).toMatchObject({ ok: true, rows: 2, byVector: true, byText: true });
    expect(r.checks.onnx).toMatchObject({ ok: true, embedder: "tiny-embed", dims: 8, norm: 1 });
    expect(r.checks.canvas).toMatchObject({ ok: true, signature: "PNG" });
    expect(r.checks.llama).toMatchObject({ ok: true, gpu: false, buildType: "prebuilt" });
    if (existsSync(STORIES)) expect(r.checks.llama).toMatchObject({ model: "stories260K", completionTokens: expect.any(Number) });
  });

  test("operator commands: --help and `models list` (GGUF header read by llama.cpp's reader, ONNX folder scan)", () => {
    expect(report.help).toBe(true);
    expect(report.models).toEqual({ code: 0, ids: existsSync(STORIES) ? ["stories260K", "tiny-embed"] : ["tiny-embed"] });
  });

  test("serves: listening line, /pub/ping and `kbqa ping` (the Docker HEALTHCHECK)", () => {
    expect(report.listeningMs).toBeGreaterThan(0);
    expect(report.ping).toBe(0);
    expect(report.pingWrongPort).toBe(1);
  });

  test("the API reference page is served with its Swagger UI files from inside the executable", () => {
    expect(report.docs).toEqual({ page: 200, bundle: 200, bundleBytes: true });
  });

  test("upload and commit a PDF, READY with its 2 pages", () => {
    expect(report.error).toBeUndefined();
    expect(report.upload).toBe(200);
    expect(report.document).toEqual({ status: "READY", nbPages: 2 });
  });

  test("a DOCX ends READY with its text (mammoth inside the executable)", () => {
    expect(report.docx).toEqual({ status: "READY", heading: true });
  });

  test("the answer states the fact and cites page 2 of the document", () => {
    expect(report.answer).toEqual({ mentionsFact: true, pages: [2], docIds: [report.answer.docId], docId: report.answer.docId });
  });

  test("the MEDIUM preview of page 2 is a PNG 1024 px wide", () => {
    expect(report.preview).toEqual({ status: 200, type: "image/png", png: "PNG", width: 1024 });
  });

  test("SIGTERM drains and exits 0", () => {
    expect(report.exitCode).toBe(0);
  });

  test("the natives were unpacked from the executable itself into ~/.cache/kbqa/runtime/<id>/", () => {
    expect(report.unpacked).toEqual(["canvas", "lancedb", "llama", "onnxruntime"]);
  });

  test("nothing is left in $TMPDIR; ONNX Runtime's telemetry stays off (it writes .ses and mat-debug-<pid>.log when on)", () => {
    expect(report.tmpFiles).toEqual([]);
  });
});
