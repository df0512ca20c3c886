// The model registry: one place that knows which models are valid now and which is the default
// per role. Precedence for defaults (documented in the README by the lead):
//   1. remote, for the roles whose model is named in config (remote.chatModel / remote.embeddingModel):
//      configuring an endpoint is an explicit operator choice, so it wins;
//   2. local files in the models folder (first by id, sorted), since they beat the built-in tier;
//   3. built-in tier, always present, so a fresh offline machine works.
// Every listed model stays selectable by id (agents' baseModel / rerankModel).
// Local and remote back-ends are imported lazily so the built-in tier never loads native code.
import { createBuiltinEmbedder, BUILTIN_EMBED_ID, BUILTIN_EMBED_DIMS } from "./builtin-embed.ts";
import { createBuiltinAnswerer, BUILTIN_ANSWER_ID } from "./builtin-answer.ts";
import { createBuiltinSummariser } from "./builtin-summary.ts";
import { createBuiltinReranker, BUILTIN_RERANK_ID } from "./builtin-rerank.ts";
import { createBuiltinTokenCounter } from "./builtin-tokens.ts";
import { UnknownModelError } from "./errors.ts";
import { scanModelsDetailed, type ScannedModel } from "./scan.ts";
import { createLocalBackends, type LocalBackends } from "./local.ts";
import { createRemoteBackends, remoteModelInfos, type RemoteBackends } from "./remote.ts";
import type { Answerer, Embedder, ModelInfo, Reranker, Role, Summariser, TokenCounter } from "./types.ts";

export interface ModelsConfig {
  modelsDir: string;
  /** llama.cpp threads. Default 1: on a 2-core box more threads contend with the HTTP server and
   *  llama.cpp's default setting measured 280× slower here. Raise on bigger machines. */
  threads: number;
  /** concurrent generation sequences per GGUF model (default 2); extra requests queue */
  maxSequences: number;
  /** how long a request may wait for a free sequence before ModelBusyError (default 60000) */
  queueTimeoutMs: number;
  remote?: { url: string; apiKey?: string; chatModel?: string; embeddingModel?: string };
}

export interface ModelRegistry {
  list(): ModelInfo[];
  /** The default embedder, or the one with this id (a vector table built by an earlier default). */
  embedder(id?: string): Embedder;
  answerer(id?: string): Answerer;
  summariser(): Summariser;
  reranker(id?: string): Reranker | undefined;
  tokens(): TokenCounter;
  has(id: string, role: Role): boolean;
  close(): Promise<void>;
}

export const MODELS_DEFAULTS = { threads: 1, maxSequences: 2, queueTimeoutMs: 60_000 } as const;

const BUILTIN_INFOS: ModelInfo[] = [
  { id: BUILTIN_EMBED_ID, role: "embedding", tier: "builtin", default: false, dims: BUILTIN_EMBED_DIMS, licence: "built-in", description: "Hashed word and character n-gram features, L2-normalised" },
  { id: BUILTIN_ANSWER_ID, role: "chat", tier: "builtin", default: false, licence: "built-in", description: "Extractive answers quoting the passages' sentences with citations" },
  { id: BUILTIN_RERANK_ID, role: "rerank", tier: "builtin", default: false, licence: "built-in", description: "BM25 lexical re-ranker" },
];

export async function createModelRegistry(cfg: ModelsConfig): Promise<ModelRegistry> {
  const scanned: ScannedModel[] = await scanModelsDetailed(cfg.modelsDir);
  const local: LocalBackends | undefined = scanned.length ? createLocalBackends(cfg, scanned) : undefined;
  const remote: RemoteBackends | undefined = cfg.remote ? createRemoteBackends(cfg.remote) : undefined;

  const infos: ModelInfo[] = [
    ...(remote ? remoteModelInfos(cfg.remote!) : []),
    ...scanned.flatMap(({ path: _p, format: _f, onnxFile: _o, modelType: _m, ...info }): ModelInfo[] =>
      // A GGUF chat model can also re-rank by asking it for relevance.
      info.role === "chat" ? [info, { ...info, role: "rerank", description: "LLM re-ranker: " + (info.description ?? "") }] : [info]),
    ...BUILTIN_INFOS,
  ].map((i) => ({ ...i }));
  const defaults = new Map<Role, string>();
  for (const role of ["embedding", "chat"] as Role[]) {
    const first = infos.find((i) => i.role === role); // already in precedence order: remote, local, builtin
    if (first) {
      first.default = true;
      defaults.set(role, first.id);
    }
  }
  // rerank has no default: the spec says rerank without rerankModel runs nothing.

  // A remote default embedder is asked for its vector width now: the vector table is opened
  // with it before the first document arrives. The probe never throws; `dims` reports a failure.
  const defaultEmbed = infos.find((i) => i.id === defaults.get("embedding") && i.role === "embedding")!;
  let probed: Embedder | undefined;
  if (defaultEmbed.tier === "remote") {
    const e = remote!.embedder(defaultEmbed.id);
    await e.probe();
    probed = e;
    try {
      defaultEmbed.dims = e.dims;
    } catch {}
  }

  const defaultChat = infos.find((i) => i.id === defaults.get("chat") && i.role === "chat")!;
  if (defaultChat.tier === "local") await local!.prepareTokens(scanned.find((s) => s.id === defaultChat.id)!);

  const find = (id: string, role: Role) => infos.find((i) => i.id === id && i.role === role);
  const cache = new Map<string, unknown>();
  if (probed) cache.set("embed:" + probed.id, probed);
  const memo = <T>(key: string, make: () => T): T => {
    if (!cache.has(key)) cache.set(key, make());
    return cache.get(key) as T;
  };

  const byTier = <T>(info: ModelInfo, builtin: () => T, loc: (m: ScannedModel) => T, rem: (id: string) => T): T => {
    if (info.tier === "builtin") return builtin();
    if (info.tier === "remote") return rem(info.id);
    return loc(scanned.find((s) => s.id === info.id && (s.role === info.role || s.format === "gguf"))!);
  };

  const answerer = (id?: string): Answerer => {
    const info = find(id ?? defaults.get("chat")!, "chat");
    if (!info) throw new UnknownModelError(id!, "chat");
    return memo("chat:" + info.id, () => byTier<Answerer>(info, createBuiltinAnswerer, (m) => local!.answerer(m), (i) => remote!.answerer(i)));
  };

  return {
    list: () => infos.map((i) => ({ ...i })),
    embedder(id?: string) {
      const info = find(id ?? defaults.get("embedding")!, "embedding");
      if (!info) throw new UnknownModelError(id!, "embedding");
      return memo("embed:" + info.id, () => byTier<Embedder>(info, createBuiltinEmbedder, (m) => local!.embedder(m), (i) => remote!.embedder(i)));
    },
    answerer,
    summariser() {
      const info = find(defaults.get("chat")!, "chat")!;
      return memo("sum:" + info.id, () => byTier<Summariser>(info, createBuiltinSummariser, (m) => local!.summariser(m), (i) => remote!.summariser(i)));
    },
    reranker(id?: string) {
      if (id === undefined) return undefined;
      const info = find(id, "rerank");
      if (!info) throw new UnknownModelError(id, "rerank");
      return memo("rerank:" + info.id, () => byTier<Reranker>(info, createBuiltinReranker, (m) => local!.reranker(m), (i) => remote!.reranker(i)));
    },
    tokens() {
      const info = find(defaults.get("chat")!, "chat")!;
      return memo("tok:" + info.id, () => (info.tier === "local" ? local!.tokens(scanned.find((s) => s.id === info.id)!) : createBuiltinTokenCounter()));
    },
    has: (id, role) => find(id, role) !== undefined,
    async close() {
      await local?.close();
      cache.clear();
    },
  };
}
