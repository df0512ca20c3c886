// Writes a tiny BERT-shaped feature-extraction model the way transformers.js expects it on disk:
// <dir>/<id>/config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx.
// Graph: last_hidden_state[b,s,:] = E[input_ids[b,s], :] * attention_mask[b,s]
// (Gather over a random embedding table, masked), so pooling and normalisation can be checked
// against the same arithmetic done in the test.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { encode, type Field } from "./protobuf.ts";

const FLOAT = 1;
const INT64 = 7;

function tensorType(elem: number, dims: (number | string)[]): Field[] {
  const shape: Field[] = dims.map((d) => [1, "msg", typeof d === "number" ? [[1, "varint", d]] : [[2, "string", d]]] as Field);
  return [[1, "msg", [[1, "varint", elem], [2, "msg", shape]]]];
}
const valueInfo = (name: string, elem: number, dims: (number | string)[]): Field[] => [[1, "string", name], [2, "msg", tensorType(elem, dims)]];
const node = (op: string, inputs: string[], outputs: string[], name: string): Field[] => [
  ...inputs.map((i) => [1, "string", i] as Field),
  ...outputs.map((o) => [2, "string", o] as Field),
  [3, "string", name],
  [4, "string", op],
];
const initializer = (name: string, dims: number[], type: number, raw: Uint8Array): Field[] => [
  ...dims.map((d) => [1, "varint", d] as Field),
  [2, "varint", type],
  [8, "string", name],
  [9, "bytes", raw],
];

export function tinyOnnxModel(table: Float32Array, vocabSize: number, dims: number): Uint8Array {
  const axes = new BigInt64Array([-1n]);
  const graph: Field[] = [
    [1, "msg", node("Gather", ["embeddings", "input_ids"], ["gathered"], "gather")],
    [1, "msg", node("Cast", ["attention_mask"], ["mask_f"], "cast").concat([[5, "msg", [[1, "string", "to"], [3, "varint", FLOAT], [20, "varint", 2]]]])],
    [1, "msg", node("Unsqueeze", ["mask_f", "axes"], ["mask_3d"], "unsqueeze")],
    [1, "msg", node("Mul", ["gathered", "mask_3d"], ["last_hidden_state"], "mul")],
    [2, "string", "tiny"],
    [5, "msg", initializer("embeddings", [vocabSize, dims], FLOAT, new Uint8Array(table.buffer.slice(0)))],
    [5, "msg", initializer("axes", [1], INT64, new Uint8Array(axes.buffer))],
    [11, "msg", valueInfo("input_ids", INT64, ["batch", "seq"])],
    [11, "msg", valueInfo("attention_mask", INT64, ["batch", "seq"])],
    [12, "msg", valueInfo("last_hidden_state", FLOAT, ["batch", "seq", dims])],
  ];
  return encode([
    [1, "varint", 8], // ir_version
    [2, "string", "kbqa-tests"],
    [7, "msg", graph],
    [8, "msg", [[1, "string", ""], [2, "varint", 13]]], // opset 13
  ]);
}

export const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"];

export function tokenizerJson(words: string[]) {
  const vocab: Record<string, number> = {};
  [...SPECIALS, ...words].forEach((w, i) => (vocab[w] = i));
  const special = (id: string) => ({ SpecialToken: { id, type_id: 0 } });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: "Lowercase" },
    pre_tokenizer: { type: "Whitespace" },
    post_processor: {
      type: "TemplateProcessing",
      single: [special("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, special("[SEP]")],
      pair: [special("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, special("[SEP]"), { Sequence: { id: "B", type_id: 1 } }, special("[SEP]")],
      special_tokens: { "[CLS]": { id: "[CLS]", ids: [2], tokens: ["[CLS]"] }, "[SEP]": { id: "[SEP]", ids: [3], tokens: ["[SEP]"] } },
    },
    decoder: null,
    model: { type: "WordLevel", vocab, unk_token: "[UNK]" },
  };
}

export interface TinyOnnx { id: string; folder: string; vocab: Record<string, number>; table: Float32Array; dims: number }

/** Seeded so a failing test reproduces. */
function rng(seed: number) {
  return () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

export async function writeTinyOnnx(modelsDir: string, id: string, words: string[], dims = 8, opts: { pooling?: "cls" | "mean" } = {}): Promise<TinyOnnx> {
  const folder = join(modelsDir, id);
  await mkdir(join(folder, "onnx"), { recursive: true });
  const vocabSize = SPECIALS.length + words.length;
  const rand = rng(42);
  const table = Float32Array.from({ length: vocabSize * dims }, rand);
  const tok = tokenizerJson(words);
  await writeFile(join(folder, "onnx", "model.onnx"), tinyOnnxModel(table, vocabSize, dims));
  await writeFile(join(folder, "tokenizer.json"), JSON.stringify(tok));
  await writeFile(join(folder, "tokenizer_config.json"), JSON.stringify({ model_max_length: 64, pad_token: "[PAD]", unk_token: "[UNK]", cls_token: "[CLS]", sep_token: "[SEP]", do_lower_case: true, tokenizer_class: "PreTrainedTokenizer" }));
  await writeFile(join(folder, "config.json"), JSON.stringify({ model_type: "bert", architectures: ["BertModel"], hidden_size: dims, max_position_embeddings: 64, vocab_size: vocabSize }));
  await writeFile(join(folder, "README.md"), "---\nlicense: mit\n---\n# tiny test model\n");
  if (opts.pooling) {
    await mkdir(join(folder, "1_Pooling"), { recursive: true });
    await writeFile(join(folder, "1_Pooling", "config.json"), JSON.stringify({ word_embedding_dimension: dims, pooling_mode_cls_token: opts.pooling === "cls", pooling_mode_mean_tokens: opts.pooling === "mean" }));
  }
  return { id, folder, vocab: tok.model.vocab, table, dims };
}
