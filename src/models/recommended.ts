// The recommended model set for `kbqa models fetch`: a multilingual sentence-embedding model
// (ONNX, for transformers.js) and a small instruct model (GGUF, for node-llama-cpp).
// Hashes: when `sha256` is absent the hub's x-linked-etag (the LFS sha256) is used instead.
export interface ModelFile { path: string; sha256?: string; size?: number }
export interface RecommendedModel {
  name: string;
  repo: string;
  revision: string;
  /** folder under the models dir the files go to ("" = the models dir itself) */
  target: string;
  files: ModelFile[];
  role: "embedding" | "chat";
  licence: string;
}

export const RECOMMENDED_MODELS: RecommendedModel[] = [
  {
    name: "multilingual-e5-small",
    repo: "Xenova/multilingual-e5-small",
    revision: "main",
    target: "multilingual-e5-small",
    files: [
      { path: "config.json" },
      { path: "tokenizer.json" },
      { path: "tokenizer_config.json" },
      { path: "special_tokens_map.json" },
      { path: "onnx/model_quantized.onnx" },
    ],
    role: "embedding",
    licence: "mit",
  },
  {
    name: "qwen2.5-0.5b-instruct",
    repo: "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
    revision: "main",
    target: "",
    files: [{ path: "qwen2.5-0.5b-instruct-q4_k_m.gguf" }],
    role: "chat",
    licence: "apache-2.0",
  },
];
