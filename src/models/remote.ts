// Remote tier: any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, hosted APIs).
// Embeddings via POST /v1/embeddings, chat via POST /v1/chat/completions with stream: true (SSE).
// Listed as "remote:<model>". Only the models named in config are listed: the server may host
// many, but only those the operator chose are valid for agents.
import { RemoteModelError } from "./errors.ts";
import { approxTokenCount } from "./builtin-tokens.ts";
import { answerSystemPrompt, answerUserPrompt, parseCitations, parseRelevance, rerankPrompt, saidNotFound, SUMMARY_MAX_TOKENS, summarySystemPrompt } from "./prompt.ts";
import type { Answerer, Embedder, ModelInfo, Reranker, Summariser } from "./types.ts";

export interface RemoteConfig { url: string; apiKey?: string; chatModel?: string; embeddingModel?: string }
export interface RemoteEmbedder extends Embedder {
  /** Learns the vector width with one tiny request; a failure is kept and reported by `dims`. */
  probe(): Promise<void>;
}
export interface RemoteBackends {
  embedder(id: string): RemoteEmbedder;
  answerer(id: string): Answerer;
  summariser(id: string): Summariser;
  reranker(id: string): Reranker;
}

export const REMOTE_PREFIX = "remote:";
const name = (id: string) => (id.startsWith(REMOTE_PREFIX) ? id.slice(REMOTE_PREFIX.length) : id);

export function remoteModelInfos(cfg: RemoteConfig): ModelInfo[] {
  const out: ModelInfo[] = [];
  if (cfg.chatModel) {
    const id = REMOTE_PREFIX + cfg.chatModel;
    out.push({ id, role: "chat", tier: "remote", default: false, description: `OpenAI-compatible chat model at ${new URL(cfg.url).host}` });
    out.push({ id, role: "rerank", tier: "remote", default: false, description: "LLM re-ranker (remote chat model)" });
  }
  if (cfg.embeddingModel) {
    out.push({ id: REMOTE_PREFIX + cfg.embeddingModel, role: "embedding", tier: "remote", default: false, description: `OpenAI-compatible embedding model at ${new URL(cfg.url).host}` });
  }
  return out;
}

interface ChatCall {
  model: string;
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  temperature?: number;
  maxTokens?: number;
  thinking?: "LOW" | "HIGH";
  signal?: AbortSignal;
  onToken?: (t: string) => void;
}

export function createRemoteBackends(cfg: RemoteConfig): RemoteBackends {
  const base = cfg.url.replace(/\/+$/, "").replace(/\/v1$/, "");
  const headers = (): Record<string, string> => ({
    "content-type": "application/json",
    ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
  });
  let dims = 0; // learnt from the probe or the first response
  let probeError: unknown;

  async function post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    const res = await fetch(base + path, { method: "POST", headers: headers(), body: JSON.stringify(body), signal });
    if (!res.ok) throw new RemoteModelError(res.status, await res.text().catch(() => ""));
    return res;
  }

  async function chat(c: ChatCall) {
    const res = await post("/v1/chat/completions", {
      model: c.model,
      messages: c.messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(c.temperature !== undefined ? { temperature: c.temperature } : {}),
      ...(c.maxTokens ? { max_tokens: c.maxTokens } : {}),
      // OpenAI-style reasoning models honour this; others ignore unknown fields.
      ...(c.thinking ? { reasoning_effort: c.thinking === "LOW" ? "low" : "high" } : {}),
    }, c.signal);
    let text = "";
    let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
    for await (const data of sseData(res.body!)) {
      if (data === "[DONE]") break;
      const chunk = JSON.parse(data);
      const delta: string | undefined = chunk.choices?.[0]?.delta?.content;
      if (delta) {
        text += delta;
        c.onToken?.(delta);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    const promptChars = c.messages.map((m) => m.content).join("\n");
    return {
      text: text.trim(),
      // Servers that omit usage get the documented approximation.
      promptTokens: usage?.prompt_tokens ?? approxTokenCount(promptChars),
      completionTokens: usage?.completion_tokens ?? approxTokenCount(text),
    };
  }

  return {
    embedder(id) {
      const e: RemoteEmbedder = {
        id,
        // The vector table is created with this width at start-up, before any document is
        // embedded: an unknown width must stop the start with the reason, not make a 0-wide table.
        get dims() {
          if (dims > 0) return dims;
          const why = probeError instanceof Error ? probeError.message : "no embedding requested yet";
          throw new Error(`Vector width of remote embedding model "${id}" at ${base} is unknown: ${why}`);
        },
        async probe() {
          try {
            await e.embed(["dimension probe"], "query");
          } catch (err) {
            probeError = err;
          }
        },
        async embed(texts) {
          if (!texts.length) return [];
          const res = await post("/v1/embeddings", { model: name(id), input: texts, encoding_format: "float" });
          const json: any = await res.json();
          const rows = [...json.data].sort((a: any, b: any) => a.index - b.index);
          const out = rows.map((r: any) => Float32Array.from(r.embedding as number[]));
          dims = out[0]?.length ?? dims;
          return out;
        },
      };
      return e;
    },
    answerer(id) {
      return {
        id,
        async answer(req) {
          const r = await chat({
            model: name(id),
            messages: [
              { role: "system", content: answerSystemPrompt(req) },
              ...req.history,
              { role: "user", content: answerUserPrompt(req) },
            ],
            temperature: req.temperature, maxTokens: req.maxTokens, thinking: req.thinking, signal: req.signal, onToken: req.onToken,
          });
          const answered = !saidNotFound(r.text, req.lang);
          return { ...r, model: id, answered, cited: answered ? parseCitations(r.text, req.passages) : [] };
        },
      };
    },
    summariser(id) {
      return {
        id,
        // Bounded like the local models' summaries (256 tokens): the summary is a chunk of its own
        // and is embedded as one vector; an unbounded reply could be any length.
        summarise: (markdown, lang) =>
          chat({ model: name(id), messages: [{ role: "system", content: summarySystemPrompt(lang) }, { role: "user", content: markdown }], temperature: 0, maxTokens: SUMMARY_MAX_TOKENS }),
      };
    },
    reranker(id) {
      return {
        id,
        async rerank(query, passages) {
          return Promise.all(passages.map(async (p) => {
            const r = await chat({ model: name(id), messages: [{ role: "user", content: rerankPrompt(query, p) }], temperature: 0, maxTokens: 4 });
            return parseRelevance(r.text);
          }));
        },
      };
    },
  };
}

/** The `data:` payloads of a text/event-stream body, one per event. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const bytes of body as any as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(bytes, { stream: true });
    let sep: number;
    while ((sep = buf.search(/\r?\n\r?\n/)) >= 0) {
      const event = buf.slice(0, sep);
      buf = buf.slice(sep).replace(/^\r?\n\r?\n/, "");
      const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
      if (data) yield data;
    }
  }
  const tail = buf.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
  if (tail) yield tail;
}
