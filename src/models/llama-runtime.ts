// node-llama-cpp runtime shared by every GGUF model of a registry. The native binding is loaded
// once, lazily, CPU only, with prebuilt binaries (build: "never": the appliance never compiles or
// downloads anything). Each model is loaded once and shared; each generation gets its own small
// context sized to its prompt (capped at the model's training context), so memory follows load
// rather than the model's maximum context, and a semaphore bounds concurrent sequences.
// Contexts are kept for reuse in power-of-two size buckets (at most maxSequences idle ones):
// creating one allocates the KV cache, which measured ~15% of a short generation on a tiny model.
import type { Llama, LlamaModel, LlamaContext, LlamaContextSequence, ChatWrapper, ChatHistoryItem } from "node-llama-cpp";

interface Slot { context: LlamaContext; sequence: LlamaContextSequence }
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

/** Power-of-two context size ≥ needed (min 256), capped at the model's training context. */
export function contextBucket(needed: number, trainCtx: number): number {
  let size = 256;
  while (size < needed) size *= 2;
  return Math.min(size, trainCtx);
}

export class GgufModel {
  private modelPromise?: Promise<{ model: LlamaModel; wrapper: ChatWrapper; trainCtx: number }>;
  readonly slots: Slots;
  private idle: Slot[] = [];

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
      const contextSize = contextBucket(estimate + maxTokens, trainCtx);
      const slot = await this.takeContext(model, contextSize);
      let reusable = false;
      try {
        const { sequence } = slot;
        const meterStart = sequence.tokenMeter.getState();
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
        const meter = sequence.tokenMeter.getState();
        const used = { input: meter.usedInputTokens - meterStart.usedInputTokens, output: meter.usedOutputTokens - meterStart.usedOutputTokens };
        session.dispose({ disposeSequence: false });
        reusable = true;
        return { text: text.trim(), promptTokens: used.input, completionTokens: used.output };
      } finally {
        await this.giveBackContext(slot, reusable);
      }
    } finally {
      release();
    }
  }

  private async takeContext(model: LlamaModel, contextSize: number): Promise<Slot> {
    const i = this.idle.findIndex((s) => s.context.contextSize === contextSize);
    if (i >= 0) return this.idle.splice(i, 1)[0]!;
    const context = await model.createContext({ contextSize, sequences: 1, threads: this.opts.threads });
    return { context, sequence: context.getSequence() };
  }

  /** Aborted or failed runs dispose their context: its state is not trusted for reuse. */
  private async giveBackContext(slot: Slot, reusable: boolean): Promise<void> {
    if (!reusable || slot.context.disposed) return void (await slot.context.dispose());
    try {
      await slot.sequence.clearHistory();
    } catch {
      return void (await slot.context.dispose());
    }
    this.idle.push(slot);
    while (this.idle.length > this.opts.maxSequences) await this.idle.shift()!.context.dispose();
  }

  async close(): Promise<void> {
    for (const s of this.idle.splice(0)) await s.context.dispose();
    if (!this.modelPromise) return;
    const { model } = await this.modelPromise.catch(() => ({ model: undefined }));
    await model?.dispose();
    this.modelPromise = undefined;
  }
}
