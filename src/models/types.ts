// Interfaces every model call of the service goes through. Three tiers implement them:
// builtin (always present), local (files in the models folder) and remote (OpenAI-compatible server).
export type Role = "embedding" | "chat" | "rerank";

export interface ModelInfo {
  id: string;
  role: Role;
  tier: "builtin" | "local" | "remote";
  default: boolean;
  dims?: number;
  contextLength?: number;
  licence?: string;
  file?: string;
  description?: string;
}

export interface Embedder {
  readonly id: string;
  readonly dims: number;
  embed(texts: string[], kind: "query" | "passage"): Promise<Float32Array[]>;
}

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

export interface Passage {
  ref: number; // 1-based citation number
  text: string;
  title?: string;
  pages?: number[];
}

export interface AnswerRequest {
  question: string;
  lang: string; // ISO-639-1
  system: string;
  history: ChatMessage[];
  passages: Passage[];
  temperature?: number;
  thinking?: "LOW" | "HIGH";
  maxTokens?: number;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}

export interface AnswerResult {
  text: string;
  cited: number[]; // refs actually cited, parsed from [n] markers
  promptTokens: number;
  completionTokens: number;
  model: string;
  answered: boolean; // false when it said the passages do not answer
  /** How many of the passages, best first, the model was shown when not all fitted in its context (absent: all). */
  shown?: number;
}

export interface Answerer {
  readonly id: string;
  answer(req: AnswerRequest): Promise<AnswerResult>;
}

export interface SummaryResult {
  text: string; // markdown
  promptTokens: number;
  completionTokens: number;
}

export interface Summariser {
  readonly id: string;
  summarise(markdown: string, lang: string): Promise<SummaryResult>;
}

export interface Reranker {
  readonly id: string;
  rerank(query: string, passages: string[]): Promise<number[]>; // score per passage, higher is better
}

export interface TokenCounter {
  readonly id: string;
  count(text: string): number;
}
