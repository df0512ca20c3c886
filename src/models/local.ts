// Local tier: ONNX models via transformers.js, GGUF models via node-llama-cpp.
// Everything loads lazily on first use and is shared by all requests of the registry.
import { approxTokenCount } from "./builtin-tokens.ts";
import { createLocalCrossEncoder, createLocalEmbedder } from "./local-embed.ts";
import { GgufModel } from "./llama-runtime.ts";
import { answerSystemPrompt, answerUserPrompt, fitPassages, parseCitations, parseRelevance, rerankPrompt, saidNotFound, SUMMARY_MAX_TOKENS, summarySystemPrompt } from "./prompt.ts";
import type { ModelsConfig } from "./registry.ts";
import { ggufProblem, type ScannedModel } from "./scan.ts";
import { ModelFileError } from "./errors.ts";
import type { Answerer, Embedder, Reranker, Summariser, TokenCounter } from "./types.ts";

export interface LocalBackends {
  embedder(m: ScannedModel): Embedder;
  answerer(m: ScannedModel): Answerer;
  summariser(m: ScannedModel): Summariser;
  reranker(m: ScannedModel): Reranker;
  /** exact token counts once prepareTokens() resolved; the documented approximation before */
  tokens(m: ScannedModel): TokenCounter;
  prepareTokens(m: ScannedModel): Promise<void>;
  gguf(m: ScannedModel): GgufModel;
  close(): Promise<void>;
}

// Summaries read at most this much of a document: small local models have small contexts.
const SUMMARY_INPUT_CHARS = 12_000;

export function createLocalBackends(cfg: ModelsConfig, _models: ScannedModel[]): LocalBackends {
  const ggufs = new Map<string, GgufModel>();
  const vocab = new Map<string, (t: string) => number>();
  const gguf = (m: ScannedModel) => {
    let g = ggufs.get(m.path);
    if (!g) {
      g = new GgufModel(m.id, m.path, { threads: cfg.threads, maxSequences: cfg.maxSequences, queueTimeoutMs: cfg.queueTimeoutMs });
      ggufs.set(m.path, g);
    }
    return g;
  };

  return {
    gguf,
    embedder: (m) => createLocalEmbedder(cfg.modelsDir, m, cfg.threads),
    answerer(m) {
      const g = gguf(m);
      return {
        id: m.id,
        async answer(req) {
          // The prompt is fitted to the model's context here, where passages are known: the best
          // ones that fit, after dropping the oldest turns of a history that leaves them less
          // than half the room.
          const system = answerSystemPrompt(req);
          const reply = await g.replyTokens(req.maxTokens);
          const full = await g.userRoom(system, [], reply);
          const { history, room } = await g.fitHistory(system, req.history, reply, full / 2);
          const passages = await fitPassages(req, room, (t) => g.countTokens(t), (t, n) => g.cut(t, n));
          const r = await g.generate({
            system,
            history,
            user: answerUserPrompt({ ...req, passages }),
            temperature: req.temperature,
            thinking: req.thinking,
            maxTokens: reply,
            signal: req.signal,
            onToken: req.onToken,
          });
          const answered = !saidNotFound(r.text, req.lang);
          return { ...r, model: m.id, answered, cited: answered ? parseCitations(r.text, passages) : [], shown: passages.length };
        },
      };
    },
    summariser(m) {
      const g = gguf(m);
      return {
        id: m.id,
        async summarise(markdown, lang) {
          const r = await g.generate({ system: summarySystemPrompt(lang), history: [], user: markdown.slice(0, SUMMARY_INPUT_CHARS), temperature: 0, maxTokens: SUMMARY_MAX_TOKENS });
          return { text: r.text, promptTokens: r.promptTokens, completionTokens: r.completionTokens };
        },
      };
    },
    reranker(m) {
      if (m.format === "onnx") return createLocalCrossEncoder(cfg.modelsDir, m, cfg.threads);
      const g = gguf(m);
      return {
        id: m.id,
        // One short generation per passage; sequential so a rerank holds at most one slot.
        async rerank(query, passages) {
          const scores: number[] = [];
          for (const p of passages) {
            const r = await g.generate({ system: "You judge search results.", history: [], user: rerankPrompt(query, p), temperature: 0, maxTokens: 4 });
            scores.push(parseRelevance(r.text));
          }
          return scores;
        },
      };
    },
    async prepareTokens(m) {
      if (m.format !== "gguf" || vocab.has(m.id)) return;
      const { sharedLlama } = await import("./llama-runtime.ts");
      const llama = await sharedLlama();
      // Vocabulary only: a few MB even for large models, no weights.
      let model: Awaited<ReturnType<typeof llama.loadModel>>;
      try {
        model = await llama.loadModel({ modelPath: m.path, vocabOnly: true });
      } catch (e) {
        const why = (await ggufProblem(m.path)) ?? String((e as Error)?.message ?? e).split("\n", 1)[0]!.slice(0, 200);
        throw new ModelFileError(`the default chat model ${m.file} cannot be loaded: ${why}; replace or remove it`);
      }
      vocab.set(m.id, (t) => model.tokenize(t).length);
    },
    tokens(m) {
      return {
        id: m.id,
        count: (text) => (vocab.get(m.id) ?? approxTokenCount)(text),
      };
    },
    async close() {
      await Promise.all([...ggufs.values()].map((g) => g.close()));
      ggufs.clear();
    },
  };
}
