// node-llama-cpp runtime shared by every GGUF model of a registry. The native binding is loaded
// once, lazily, CPU only, with prebuilt binaries (build: "never": the appliance never compiles or
// downloads anything). Each model is loaded once and shared; each generation gets its own small
// context sized to its prompt (capped at the model's training context), so memory follows load
// rather than the model's maximum context, and a semaphore bounds concurrent sequences.
import type { Llama, LlamaModel, ChatWrapper, ChatHistoryItem } from "node-llama-cpp";
import { Slots } from "./slots.ts";
import { ModelAbortedError } from "./errors.ts";

export interface LlamaOptions { threads: number; maxSequences: number; queueTimeoutMs: number }

export interface GenerateRequest {
  system: string;
  history: { role: "user" | "assistant"; content: string }[];
  user: string;
  temperature?: number;
  thinking?: "LOW" | "HIGH";
  maxTokens?: number;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}

export interface GenerateResult { text: string; promptTokens: number; completionTokens: number }

let llamaPromise: Promise<Llama> | undefined;

/** One native runtime per process; models and contexts are per GGUF model. */
export function sharedLlama(): Promise<Llama> {
  llamaPromise ??= import("node-llama-cpp").then(({ getLlama, LlamaLogLevel }) =>
    getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error }),
  );
  return llamaPromise;
}

export class GgufModel {
  private modelPromise?: Promise<{ model: LlamaModel; wrapper: ChatWrapper; trainCtx: number }>;
  readonly slots: Slots;

  constructor(readonly id: string, readonly path: string, private readonly opts: LlamaOptions) {
    this.slots = new Slots(opts.maxSequences, opts.queueTimeoutMs, id);
  }

  load() {
    this.modelPromise ??= (async () => {
      const { GeneralChatWrapper, resolveChatWrapper } = await import("node-llama-cpp");
      const llama = await sharedLlama();
      const model = await llama.loadModel({ modelPath: this.path, gpuLayers: 0 });
      // The model's own template when it ships one; a generic wrapper for plain completion models.
      const hasTemplate = Boolean((model.fileInfo.metadata as any)?.tokenizer?.chat_template);
      const wrapper = hasTemplate ? resolveChatWrapper(model) : new GeneralChatWrapper();
      return { model, wrapper, trainCtx: model.trainContextSize };
    })();
    return this.modelPromise;
  }

  async countTokens(text: string): Promise<number> {
    const { model } = await this.load();
    return model.tokenize(text).length;
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const { LlamaChatSession } = await import("node-llama-cpp");
    const { model, wrapper, trainCtx } = await this.load();
    const release = await this.slots.acquire(req.signal);
    try {
      const maxTokens = req.maxTokens ?? 512;
      const estimate = model.tokenize([req.system, ...req.history.map((h) => h.content), req.user].join("\n")).length + 64;
      const contextSize = Math.min(trainCtx, Math.max(256, estimate + maxTokens));
      const context = await model.createContext({ contextSize, sequences: 1, threads: this.opts.threads });
      try {
        const sequence = context.getSequence();
        const session = new LlamaChatSession({ contextSequence: sequence, chatWrapper: wrapper, systemPrompt: req.system });
        if (req.history.length) {
          const items: ChatHistoryItem[] = [{ type: "system", text: req.system }];
          for (const h of req.history) items.push(h.role === "user" ? { type: "user", text: h.content } : { type: "model", response: [h.content] });
          session.setChatHistory(items);
        }
        let text: string;
        try {
          text = await session.prompt(req.user, {
            temperature: req.temperature ?? 0,
            maxTokens: Math.max(1, Math.min(maxTokens, contextSize - estimate)),
            signal: req.signal,
            stopOnAbortSignal: false,
            onTextChunk: req.onToken,
            // LOW: no chain of thought for models that have one; HIGH: node-llama-cpp's default budget.
            // Models without thought segments ignore this.
            budgets: req.thinking === "LOW" ? { thoughtTokens: 0 } : undefined,
          });
        } catch (e) {
          if (req.signal?.aborted) throw req.signal.reason ?? new ModelAbortedError();
          throw e;
        }
        const meter = sequence.tokenMeter;
        return { text: text.trim(), promptTokens: meter.usedInputTokens, completionTokens: meter.usedOutputTokens };
      } finally {
        await context.dispose();
      }
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    if (!this.modelPromise) return;
    const { model } = await this.modelPromise.catch(() => ({ model: undefined }));
    await model?.dispose();
    this.modelPromise = undefined;
  }
}
