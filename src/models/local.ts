// Local tier: ONNX models via transformers.js, GGUF models via node-llama-cpp (work in progress).
import type { ModelsConfig } from "./registry.ts";
import type { ScannedModel } from "./scan.ts";
import type { Answerer, Embedder, Reranker, Summariser, TokenCounter } from "./types.ts";

export interface LocalBackends {
  embedder(m: ScannedModel): Embedder;
  answerer(m: ScannedModel): Answerer;
  summariser(m: ScannedModel): Summariser;
  reranker(m: ScannedModel): Reranker;
  tokens(m: ScannedModel): TokenCounter;
  close(): Promise<void>;
}

export function createLocalBackends(_cfg: ModelsConfig, _models: ScannedModel[]): LocalBackends {
  const todo = (): never => { throw new Error("local tier not implemented yet"); };
  return { embedder: todo, answerer: todo, summariser: todo, reranker: todo, tokens: todo, close: async () => {} };
}
