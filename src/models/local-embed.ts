// Local ONNX embedding models through transformers.js, reading only the models folder
// (remote loading off). Pooling follows the model's sentence-transformers 1_Pooling config when
// present; otherwise mean, except BGE (CLS). Vectors are L2-normalised. Query/passage prefixes
// follow the model families' documented conventions (e5: "query: "/"passage: ", bge: an
// instruction before queries only).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { disableOnnxTelemetry } from "../runtime/native-env.ts";
import type { ScannedModel } from "./scan.ts";
import type { Embedder, Reranker } from "./types.ts";

export type Pooling = "mean" | "cls" | "last_token";

export async function readPooling(folder: string, id: string): Promise<Pooling> {
  try {
    const cfg = JSON.parse(await readFile(join(folder, "1_Pooling", "config.json"), "utf8"));
    if (cfg.pooling_mode_cls_token) return "cls";
    if (cfg.pooling_mode_lasttoken) return "last_token";
    return "mean";
  } catch {
    return /bge/i.test(id) ? "cls" : "mean";
  }
}

export function prefixesFor(id: string): { query: string; passage: string } {
  if (/e5/i.test(id)) return { query: "query: ", passage: "passage: " };
  if (/bge/i.test(id) && !/m3/i.test(id)) {
    return /zh/i.test(id)
      ? { query: "为这个句子生成表示以用于检索相关文章：", passage: "" }
      : { query: "Represent this sentence for searching relevant passages: ", passage: "" };
  }
  return { query: "", passage: "" };
}

/** transformers.js picks onnx/<model_file_name><dtype suffix>.onnx; map our chosen file onto that. */
export function onnxLoadOptions(onnxFile: string): { model_file_name: string; dtype: "q8" | "fp32" } {
  const base = onnxFile.replace(/\.onnx$/, "");
  return base.endsWith("_quantized")
    ? { model_file_name: base.slice(0, -"_quantized".length), dtype: "q8" }
    : { model_file_name: base, dtype: "fp32" };
}

let envReady: Promise<typeof import("@huggingface/transformers")> | undefined;

export async function transformersFor(modelsDir: string) {
  // Before ONNX Runtime loads: its Linux build uploads telemetry unless ORT_DISABLE_TELEMETRY is in
  // the C environment, which transformers.js's own process.env assignment does not reach under
  // Bun (see runtime/native-env.ts). The offline tier test catches the attempt with strace.
  envReady ??= (disableOnnxTelemetry(), import("@huggingface/transformers"));
  const tf = await envReady;
  tf.env.allowRemoteModels = false;
  tf.env.allowLocalModels = true;
  tf.env.localModelPath = modelsDir.endsWith("/") ? modelsDir : modelsDir + "/";
  tf.env.useFSCache = false;
  return tf;
}

export function createLocalEmbedder(modelsDir: string, m: ScannedModel, threads: number): Embedder {
  const prefixes = prefixesFor(m.id);
  let ready: Promise<{ extractor: any; pooling: Pooling }> | undefined;
  const load = () =>
    (ready ??= (async () => {
      const tf = await transformersFor(modelsDir);
      const extractor = await tf.pipeline("feature-extraction", m.id, {
        ...onnxLoadOptions(m.onnxFile!),
        local_files_only: true,
        session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
      } as any);
      return { extractor, pooling: await readPooling(m.path, m.id) };
    })());
  return {
    id: m.id,
    dims: m.dims ?? 0,
    async embed(texts, kind) {
      if (!texts.length) return [];
      const { extractor, pooling } = await load();
      const prefix = prefixes[kind];
      const out = await extractor(texts.map((t) => prefix + t), { pooling, normalize: true });
      const [n, d] = out.dims as number[];
      const data = out.data as Float32Array;
      return Array.from({ length: n! }, (_, i) => data.slice(i * d!, (i + 1) * d!));
    },
  };
}

/** ONNX cross-encoder: one logit per (query, passage) pair. */
export function createLocalCrossEncoder(modelsDir: string, m: ScannedModel, threads: number): Reranker {
  let ready: Promise<{ tokenizer: any; model: any }> | undefined;
  const load = () =>
    (ready ??= (async () => {
      const tf = await transformersFor(modelsDir);
      const opts = { ...onnxLoadOptions(m.onnxFile!), local_files_only: true, session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 } } as any;
      return {
        tokenizer: await tf.AutoTokenizer.from_pretrained(m.id, { local_files_only: true }),
        model: await tf.AutoModelForSequenceClassification.from_pretrained(m.id, opts),
      };
    })());
  return {
    id: m.id,
    async rerank(query: string, passages: string[]): Promise<number[]> {
      if (!passages.length) return [];
      const { tokenizer, model } = await load();
      // Segment ids always: transformers.js returns them only for tokenizer classes it knows need
      // them (BertTokenizer…), and otherwise feeds zeros, so a cross-encoder shipped with a generic
      // tokenizer_class would score the pair as one undivided text. Models without the input ignore them.
      const inputs = tokenizer(new Array(passages.length).fill(query), { text_pair: passages, padding: true, truncation: true, return_token_type_ids: true });
      const { logits } = await model(inputs);
      return Array.from(logits.data as Float32Array).slice(0, passages.length);
    },
  };
}
