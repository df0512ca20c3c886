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

const DEFAULT_REPLY_TOKENS = 512;
/** Tokens the chat template adds around the messages (role markers, separators), generously. */
const PROMPT_OVERHEAD = 64;

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

  /** Tokens of the reply a generation leaves room for: 512, or a quarter of a smaller context. */
  async replyTokens(wanted = DEFAULT_REPLY_TOKENS): Promise<number> {
    const { trainCtx } = await this.load();
    return Math.max(1, Math.min(wanted, Math.floor(trainCtx / 4)));
  }

  /** Tokens left for the user message once the system prompt, the history and the reply are in the model's context. */
  async userRoom(system: string, history: GenerateRequest["history"], replyTokens: number): Promise<number> {
    const { model, trainCtx } = await this.load();
    return trainCtx - replyTokens - PROMPT_OVERHEAD - model.tokenize([system, ...history.map((h) => h.content)].join("\n")).length;
  }

  /** The first `tokens` tokens of `text` (all of it when it is that short). */
  async cut(text: string, tokens: number): Promise<string> {
    const { model } = await this.load();
    const t = model.tokenize(text);
    return t.length <= tokens ? text : model.detokenize(t.slice(0, Math.max(0, tokens)));
  }

  /**
   * A prompt longer than the model's context made node-llama-cpp shift the context over and over
   * before the first token (seconds even on a tiny model, and no abort heard meanwhile) and then
   * answer from a truncated prompt of its choosing. Callers fit their input (the answerer keeps the
   * best passages that fit: local.ts); what still does not fit loses its oldest history turns,
   * then the end of the user message.
   */
  private async fitted(req: GenerateRequest, replyTokens: number): Promise<GenerateRequest> {
    const { model } = await this.load();
    const need = model.tokenize(req.user).length;
    const { history, room } = await this.fitHistory(req.system, req.history, replyTokens, need);
    return need <= room ? { ...req, history } : { ...req, history, user: await this.cut(req.user, room) };
  }

  /** The history without its oldest turns, as few as leave the user message `wanted` tokens (or none left to drop), and the room it then has. */
  async fitHistory(system: string, history: GenerateRequest["history"], replyTokens: number, wanted: number) {
    const kept = [...history];
    let room = await this.userRoom(system, kept, replyTokens);
    while (room < wanted && kept.length) {
      kept.shift();
      room = await this.userRoom(system, kept, replyTokens);
    }
    return { history: kept, room };
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { LlamaChatSession } = await import("node-llama-cpp");
    const { model, wrapper, trainCtx } = await this.load();
    const maxTokens = await this.replyTokens(request.maxTokens);
    const req = await this.fitted(request, maxTokens);
    const release = await this.slots.acquire(req.signal);
    try {
      const estimate = model.tokenize([req.system, ...req.history.map((h) => h.content), req.user].join("\n")).length + PROMPT_OVERHEAD;
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
