// `kbqa selftest`: loads every native part the executable embeds and exercises it once, so a bare
// machine can be checked without starting the server: LanceDB (write + vector and full-text
// search), ONNX Runtime via transformers.js (through the models registry when the models folder
// holds an ONNX embedder), llama.cpp (a short generation when it holds a GGUF), canvas (PNG encode).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isCompiled } from "./compiled.ts";

type Check = Record<string, unknown> & { ok: boolean };

async function check(fn: () => Promise<Record<string, unknown>>): Promise<Check> {
  const t = performance.now();
  try {
    return { ok: true, ...(await fn()), ms: Math.round(performance.now() - t) };
  } catch (e) {
    return { ok: false, error: String((e as Error)?.stack ?? e) };
  }
}

async function lance(): Promise<Record<string, unknown>> {
  const { openLanceIndex } = await import("../store/lance.ts");
  const dir = mkdtempSync(join(tmpdir(), "kbqa-selftest-"));
  try {
    const idx = await openLanceIndex(dir, "selftest", 4);
    const org = crypto.randomUUID(), corpus = crypto.randomUUID(), doc = crypto.randomUUID();
    const rec = (text: string, v: number[]) => ({ chunkId: crypto.randomUUID(), orgId: org, corpusId: corpus, documentId: doc, generation: 1, text, vector: Float32Array.from(v) });
    const a = rec("the lighthouse keeper", [1, 0, 0, 0]);
    const b = rec("an orchard of pears", [0, 1, 0, 0]);
    await idx.replaceDocument(org, doc, [a, b]);
    const byVector = (await idx.searchVector(org, [corpus], Float32Array.from([0, 1, 0, 0]), 1))[0]?.chunkId === b.chunkId;
    const byText = (await idx.searchText(org, [corpus], "lighthouse", 1))[0]?.chunkId === a.chunkId;
    const rows = await idx.count();
    await idx.close();
    if (!byVector || !byText) throw new Error(`search returned the wrong chunk (vector ${byVector}, text ${byText})`);
    return { rows, byVector, byText };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onnx(modelsDir: string): Promise<Record<string, unknown>> {
  // transformers.js loads onnxruntime-node (and so its native binding) when it is imported.
  const tf = await import("@huggingface/transformers");
  const out: Record<string, unknown> = { onnxruntime: (tf.env.backends.onnx as any)?.versions?.node ?? tf.env.version };
  const { createModelRegistry } = await import("../models/registry.ts");
  const reg = await createModelRegistry({ modelsDir, threads: 1, maxSequences: 1, queueTimeoutMs: 10_000 });
  try {
    const e = reg.embedder();
    const [v] = await e.embed(["hello world"], "passage");
    Object.assign(out, { embedder: e.id, dims: v?.length, norm: Number(Math.hypot(...(v ?? [])).toFixed(4)) });
  } finally {
    await reg.close();
  }
  return out;
}

async function llama(modelsDir: string): Promise<Record<string, unknown>> {
  const { sharedLlama } = await import("../models/llama-runtime.ts");
  const l = await sharedLlama();
  const out: Record<string, unknown> = { buildType: (l as any).buildType, gpu: l.gpu };
  const { createModelRegistry } = await import("../models/registry.ts");
  const reg = await createModelRegistry({ modelsDir, threads: 1, maxSequences: 1, queueTimeoutMs: 10_000 });
  try {
    const chat = reg.list().find((m) => m.role === "chat" && m.tier === "local");
    if (chat) {
      const r = await reg.answerer(chat.id).answer({ question: "Once upon a time", lang: "en", system: "", history: [], passages: [], maxTokens: 8 });
      Object.assign(out, { model: chat.id, completionTokens: r.completionTokens, text: r.text });
    }
  } finally {
    await reg.close();
  }
  return out;
}

async function canvas(): Promise<Record<string, unknown>> {
  const { createCanvas } = await import("@napi-rs/canvas");
  const c = createCanvas(16, 16);
  c.getContext("2d").fillRect(0, 0, 8, 8);
  const png = await c.encode("png");
  return { pngBytes: png.length, signature: Array.from(png.subarray(1, 4), (b) => String.fromCharCode(b)).join("") };
}

export async function selftest(modelsDir: string): Promise<{ ok: boolean; compiled: boolean; checks: Record<string, Check> }> {
  const checks: Record<string, Check> = {
    lancedb: await check(lance),
    onnx: await check(() => onnx(modelsDir)),
    llama: await check(() => llama(modelsDir)),
    canvas: await check(canvas),
  };
  return { ok: Object.values(checks).every((c) => c.ok), compiled: isCompiled(), checks };
}
