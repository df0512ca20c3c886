// Writes a tiny BERT-shaped cross-encoder (sequence classification, one label) the way
// transformers.js loads it: <dir>/<id>/config.json, tokenizer.json, tokenizer_config.json,
// onnx/model.onnx. Its score is arithmetic a test can redo by hand:
//   logits[b,0] = Σ_w countQuery(w)·countPassage(w)  +  Σ_{t in passage} boost[t]
// The query is segment A and the passage segment B (token_type_ids), so a score only comes out
// right when the caller feeds (query, passage) as a text pair with segment ids; special tokens and
// unknown words count for nothing.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { encode, type Field } from "./protobuf.ts";
import { SPECIALS, tokenizerJson } from "./tiny-onnx.ts";

const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;

function tensorType(elem: number, dims: (number | string)[]): Field[] {
  const shape: Field[] = dims.map((d) => [1, "msg", typeof d === "number" ? [[1, "varint", d]] : [[2, "string", d]]] as Field);
  return [[1, "msg", [[1, "varint", elem], [2, "msg", shape]]]];
}
const valueInfo = (name: string, elem: number, dims: (number | string)[]): Field => [11, "msg", [[1, "string", name], [2, "msg", tensorType(elem, dims)]]];
const output = (name: string, elem: number, dims: (number | string)[]): Field => [12, "msg", [[1, "string", name], [2, "msg", tensorType(elem, dims)]]];
const intAttr = (name: string, v: number): Field => [5, "msg", [[1, "string", name], [3, "varint", v], [20, "varint", ATTR_INT]]];
const node = (op: string, inputs: string[], outputs: string[], attrs: Field[] = []): Field => [1, "msg", [
  ...inputs.map((i) => [1, "string", i] as Field),
  ...outputs.map((o) => [2, "string", o] as Field),
  [3, "string", outputs[0]!],
  [4, "string", op],
  ...attrs,
]];
const initializer = (name: string, dims: number[], type: number, raw: Uint8Array): Field => [5, "msg", [
  ...dims.map((d) => [1, "varint", d] as Field),
  [2, "varint", type],
  [8, "string", name],
  [9, "bytes", raw],
]];
const bytes = (a: Float32Array | BigInt64Array) => new Uint8Array(a.buffer.slice(0));

/** ModelProto (opset 13) for the score above; `onehot` is [vocab, dims], `boost` is [vocab]. */
export function crossEncoderOnnx(onehot: Float32Array, boost: Float32Array, vocabSize: number, dims: number): Uint8Array {
  const sum = (input: string, out: string, axes: string, keep: number) => node("ReduceSum", [input, axes], [out], [intAttr("keepdims", keep)]);
  const graph: Field[] = [
    node("Cast", ["attention_mask"], ["mask"], [intAttr("to", FLOAT)]),
    node("Cast", ["token_type_ids"], ["segment"], [intAttr("to", FLOAT)]),
    node("Mul", ["mask", "segment"], ["mask_b"]), // passage tokens
    node("Sub", ["mask", "mask_b"], ["mask_a"]), // query tokens (and the leading [CLS]/[SEP], which are zero rows)
    node("Gather", ["onehot", "input_ids"], ["words"]), // [b, s, dims]
    node("Unsqueeze", ["mask_a", "last_axis"], ["mask_a3"]),
    node("Unsqueeze", ["mask_b", "last_axis"], ["mask_b3"]),
    node("Mul", ["words", "mask_a3"], ["words_a"]),
    node("Mul", ["words", "mask_b3"], ["words_b"]),
    sum("words_a", "bag_a", "seq_axis", 0), // [b, dims] word counts of the query
    sum("words_b", "bag_b", "seq_axis", 0), // [b, dims] word counts of the passage
    node("Mul", ["bag_a", "bag_b"], ["both"]),
    sum("both", "overlap", "seq_axis", 1), // [b, 1]
    node("Gather", ["boost", "input_ids"], ["token_boost"]), // [b, s]
    node("Mul", ["token_boost", "mask_b"], ["passage_boost"]),
    sum("passage_boost", "boost_sum", "seq_axis", 1), // [b, 1]
    node("Add", ["overlap", "boost_sum"], ["logits"]),
    [2, "string", "tiny-cross-encoder"],
    initializer("onehot", [vocabSize, dims], FLOAT, bytes(onehot)),
    initializer("boost", [vocabSize], FLOAT, bytes(boost)),
    initializer("last_axis", [1], INT64, bytes(new BigInt64Array([-1n]))),
    initializer("seq_axis", [1], INT64, bytes(new BigInt64Array([1n]))),
    valueInfo("input_ids", INT64, ["batch", "seq"]),
    valueInfo("attention_mask", INT64, ["batch", "seq"]),
    valueInfo("token_type_ids", INT64, ["batch", "seq"]),
    output("logits", FLOAT, ["batch", 1]),
  ];
  return encode([
    [1, "varint", 8], // ir_version
    [2, "string", "kbqa-tests"],
    [7, "msg", graph],
    [8, "msg", [[1, "string", ""], [2, "varint", 13]]], // opset 13: ReduceSum/Unsqueeze take axes as inputs
  ]);
}

export interface TinyCrossEncoder {
  id: string;
  folder: string;
  vocab: Record<string, number>;
  /** the score the model must produce for (query, passage), computed in plain JS */
  score(query: string, passage: string): number;
}

/** What the tokenizer does: lowercase, split words from punctuation, keep known words. */
function words(text: string, known: Set<string>): string[] {
  return (text.toLowerCase().match(/\w+|[^\w\s]+/g) ?? []).filter((w) => known.has(w));
}

export interface CrossEncoderOptions {
  /** extra per-token score for passage tokens (default none) */
  boost?: Record<string, number>;
  /** tokenizer_config.json tokenizer_class (default BertTokenizer, which returns token_type_ids) */
  tokenizerClass?: string;
  /** config.json overrides, e.g. a two-label id2label to make it a non-reranker classifier */
  config?: Record<string, unknown>;
}

export async function writeTinyCrossEncoder(modelsDir: string, id: string, vocabWords: string[], opts: CrossEncoderOptions = {}): Promise<TinyCrossEncoder> {
  const folder = join(modelsDir, id);
  await mkdir(join(folder, "onnx"), { recursive: true });
  const uniq = [...new Set(vocabWords.map((w) => w.toLowerCase()))];
  const vocabSize = SPECIALS.length + uniq.length;
  const dims = uniq.length;
  const onehot = new Float32Array(vocabSize * dims);
  uniq.forEach((_, i) => (onehot[(SPECIALS.length + i) * dims + i] = 1));
  const boost = new Float32Array(vocabSize);
  const tok = tokenizerJson(uniq);
  const boosts = new Map(Object.entries(opts.boost ?? {}).map(([w, b]) => [w.toLowerCase(), b]));
  for (const [w, b] of boosts) {
    const idx = tok.model.vocab[w];
    if (idx === undefined) throw new Error(`boosted word '${w}' is not in the vocabulary`);
    boost[idx] = b;
  }
  await writeFile(join(folder, "onnx", "model.onnx"), crossEncoderOnnx(onehot, boost, vocabSize, dims));
  await writeFile(join(folder, "tokenizer.json"), JSON.stringify(tok));
  await writeFile(join(folder, "tokenizer_config.json"), JSON.stringify({
    model_max_length: 128, pad_token: "[PAD]", unk_token: "[UNK]", cls_token: "[CLS]", sep_token: "[SEP]",
    do_lower_case: true, tokenizer_class: opts.tokenizerClass ?? "BertTokenizer",
  }));
  await writeFile(join(folder, "config.json"), JSON.stringify({
    model_type: "bert", architectures: ["BertForSequenceClassification"], id2label: { "0": "LABEL_0" }, label2id: { LABEL_0: 0 },
    hidden_size: dims, max_position_embeddings: 128, vocab_size: vocabSize, ...opts.config,
  }));
  await writeFile(join(folder, "README.md"), "---\nlicense: apache-2.0\n---\n# tiny test cross-encoder\n");

  const known = new Set(uniq);
  const score = (query: string, passage: string) => {
    const q = words(query, known), p = words(passage, known);
    const count = (list: string[], w: string) => list.filter((x) => x === w).length;
    const overlap = [...new Set(q)].reduce((s, w) => s + count(q, w) * count(p, w), 0);
    return overlap + p.reduce((s, w) => s + (boosts.get(w) ?? 0), 0);
  };
  return { id, folder, vocab: tok.model.vocab, score };
}
