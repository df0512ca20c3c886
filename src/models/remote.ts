// Remote tier: OpenAI-compatible endpoint (work in progress).
import type { Answerer, Embedder, ModelInfo, Reranker, Summariser } from "./types.ts";

export interface RemoteConfig { url: string; apiKey?: string; chatModel?: string; embeddingModel?: string }
export interface RemoteBackends {
  embedder(id: string): Embedder;
  answerer(id: string): Answerer;
  summariser(id: string): Summariser;
  reranker(id: string): Reranker;
}
export function remoteModelInfos(_cfg: RemoteConfig): ModelInfo[] {
  return [];
}
export function createRemoteBackends(_cfg: RemoteConfig): RemoteBackends {
  const todo = (): never => { throw new Error("remote tier not implemented yet"); };
  return { embedder: todo, answerer: todo, summariser: todo, reranker: todo };
}
