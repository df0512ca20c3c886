import { Type as T, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { resolve } from "node:path";
import { cpus } from "node:os";

/**
 * The one place that reads the environment. Flags win over KBQA_* variables, which win over
 * defaults; the result is validated once with TypeBox and passed down as a plain object.
 */
export const ConfigSchema = T.Object({
  dataDir: T.String({ minLength: 1 }),
  modelsDir: T.String({ minLength: 1 }),
  host: T.String({ minLength: 1 }),
  port: T.Integer({ minimum: 0, maximum: 65535 }),
  /** Largest upload accepted by the storage route, bytes. */
  maxUploadBytes: T.Integer({ minimum: 1 }),
  /** Lifetime of presigned upload URLs, seconds. */
  uploadUrlTtl: T.Integer({ minimum: 1 }),
  /** Lifetime of presigned download and preview URLs, seconds. */
  downloadUrlTtl: T.Integer({ minimum: 1 }),
  /** Upper bound for an access token's ttl, seconds. */
  maxTokenTtl: T.Integer({ minimum: 11 }),
  /** Ingestion worker processes. */
  workers: T.Integer({ minimum: 1, maximum: 64 }),
  /** Wall-clock limit for one document's parsing, milliseconds. */
  ingestTimeoutMs: T.Integer({ minimum: 1000 }),
  /** Memory limit of one ingestion worker, bytes. */
  ingestMemoryBytes: T.Integer({ minimum: 64 * 1024 * 1024 }),
  /** An ingestion worker idle this long exits (a new one starts with the next job); 0 keeps them. */
  workerIdleMs: T.Integer({ minimum: 0 }),
  /** Attempts before a document that keeps crashing its worker ends FAILED. */
  ingestMaxAttempts: T.Integer({ minimum: 1, maximum: 20 }),
  /** llama.cpp threads per generation. 1 is fastest for small models on this 2-core box. */
  llamaThreads: T.Integer({ minimum: 1, maximum: 256 }),
  /** Concurrent generations sharing a loaded model. */
  llamaSequences: T.Integer({ minimum: 1, maximum: 64 }),
  /** How long a query waits for a free sequence before failing clearly, milliseconds. */
  modelQueueTimeoutMs: T.Integer({ minimum: 100 }),
  /** How long GET /v1/doc/{id}/summary waits for a summary, milliseconds. */
  summaryWaitMs: T.Integer({ minimum: 0 }),
  /** Origin put in presigned storage URLs (e.g. https://kb.example.com behind a proxy); default: the request's origin. */
  publicUrl: T.Optional(T.String({ pattern: "^https?://" })),
  remoteUrl: T.Optional(T.String()),
  remoteKey: T.Optional(T.String()),
  remoteChatModel: T.Optional(T.String()),
  remoteEmbeddingModel: T.Optional(T.String()),
  /** Chunks re-embedded per batch when the embedding model changed (the rebuild yields between batches). */
  reembedBatch: T.Integer({ minimum: 1, maximum: 4096 }),
  /** Pause between re-embedding batches, milliseconds: leaves CPU to queries on small machines. */
  reembedPauseMs: T.Integer({ minimum: 0, maximum: 60_000 }),
  /** Origins allowed to call from a browser: "*" (any), "none", or a comma-separated list of origins. */
  corsOrigins: T.String({ pattern: "^(\\*|none|https?://[^,\\s]+(\\s*,\\s*https?://[^,\\s]+)*)$" }),
  /** Log level: errors only, or one line per request too. */
  logRequests: T.Boolean(),
  /** TESTS ONLY: usage reports read their clock (epoch ms) from this file. Never set in production. */
  testFakeTimeFile: T.Optional(T.String()),
});
export type Config = Static<typeof ConfigSchema>;

interface Field {
  key: keyof Config;
  flag: string;
  env: string;
  kind: "string" | "int" | "bool" | "path";
  def?: (cwd: string) => string | number | boolean | undefined;
  /** How --help states a default that depends on the machine. */
  defaultText?: string;
  help: string;
}

/** " (default: …)" for --help, from the same definition the configuration uses. */
export function defaultNote(f: Field): string {
  if (f.defaultText) return ` (default: ${f.defaultText})`;
  const v = f.def?.(".");
  if (v === undefined) return "";
  return ` (default: ${v === false ? "off" : v === true ? "on" : String(v)})`;
}

export const FIELDS: Field[] = [
  { key: "dataDir", flag: "data", env: "KBQA_DATA_DIR", kind: "path", def: () => "./data", help: "data directory (SQLite, LanceDB, blobs)" },
  { key: "modelsDir", flag: "models", env: "KBQA_MODELS_DIR", kind: "path", def: () => "./models", help: "models directory" },
  { key: "host", flag: "host", env: "KBQA_HOST", kind: "string", def: () => "127.0.0.1", help: "address to listen on" },
  { key: "port", flag: "port", env: "KBQA_PORT", kind: "int", def: () => 8080, help: "port (0 picks a free one)" },
  { key: "maxUploadBytes", flag: "max-upload-bytes", env: "KBQA_MAX_UPLOAD_BYTES", kind: "int", def: () => 100 * 1024 * 1024, help: "largest upload, bytes" },
  { key: "uploadUrlTtl", flag: "upload-url-ttl", env: "KBQA_UPLOAD_URL_TTL", kind: "int", def: () => 900, help: "upload URL lifetime, seconds" },
  { key: "downloadUrlTtl", flag: "download-url-ttl", env: "KBQA_DOWNLOAD_URL_TTL", kind: "int", def: () => 300, help: "download/preview URL lifetime, seconds" },
  { key: "maxTokenTtl", flag: "max-token-ttl", env: "KBQA_MAX_TOKEN_TTL", kind: "int", def: () => 86400, help: "largest access-token ttl, seconds" },
  { key: "workers", flag: "workers", env: "KBQA_WORKERS", kind: "int", def: () => Math.max(1, cpus().length), defaultText: "one per core", help: "ingestion worker processes" },
  { key: "ingestTimeoutMs", flag: "ingest-timeout-ms", env: "KBQA_INGEST_TIMEOUT_MS", kind: "int", def: () => 120_000, help: "per-document parsing time limit" },
  { key: "ingestMemoryBytes", flag: "ingest-memory-bytes", env: "KBQA_INGEST_MEMORY_BYTES", kind: "int", def: () => 1024 * 1024 * 1024, help: "per-worker memory limit" },
  { key: "workerIdleMs", flag: "worker-idle-ms", env: "KBQA_WORKER_IDLE_MS", kind: "int", def: () => 15_000, help: "idle ingestion workers exit after this long, ms (0: never)" },
  { key: "ingestMaxAttempts", flag: "ingest-max-attempts", env: "KBQA_INGEST_MAX_ATTEMPTS", kind: "int", def: () => 3, help: "attempts before FAILED" },
  { key: "llamaThreads", flag: "llama-threads", env: "KBQA_LLAMA_THREADS", kind: "int", def: () => 1, help: "llama.cpp threads per generation" },
  { key: "llamaSequences", flag: "llama-sequences", env: "KBQA_LLAMA_SEQUENCES", kind: "int", def: () => 2, help: "concurrent generations" },
  { key: "modelQueueTimeoutMs", flag: "model-queue-timeout-ms", env: "KBQA_MODEL_QUEUE_TIMEOUT_MS", kind: "int", def: () => 60_000, help: "wait for a free generation slot" },
  { key: "summaryWaitMs", flag: "summary-wait-ms", env: "KBQA_SUMMARY_WAIT_MS", kind: "int", def: () => 30_000, help: "how long GET summary waits" },
  { key: "publicUrl", flag: "public-url", env: "KBQA_PUBLIC_URL", kind: "string", help: "origin of presigned storage URLs (default: request origin)" },
  { key: "remoteUrl", flag: "remote-url", env: "KBQA_REMOTE_URL", kind: "string", help: "OpenAI-compatible server base URL" },
  { key: "remoteKey", flag: "remote-key", env: "KBQA_REMOTE_KEY", kind: "string", help: "API key for the remote server" },
  { key: "remoteChatModel", flag: "remote-chat-model", env: "KBQA_REMOTE_CHAT_MODEL", kind: "string", help: "remote chat model name" },
  { key: "remoteEmbeddingModel", flag: "remote-embedding-model", env: "KBQA_REMOTE_EMBEDDING_MODEL", kind: "string", help: "remote embedding model name" },
  { key: "reembedBatch", flag: "reembed-batch", env: "KBQA_REEMBED_BATCH", kind: "int", def: () => 64, help: "chunks per re-embedding batch after an embedding model change" },
  { key: "reembedPauseMs", flag: "reembed-pause-ms", env: "KBQA_REEMBED_PAUSE_MS", kind: "int", def: () => 0, help: "pause between re-embedding batches, ms" },
  { key: "corsOrigins", flag: "cors-origins", env: "KBQA_CORS_ORIGINS", kind: "string", def: () => "*", help: 'browser origins allowed: "*", "none" or a comma-separated list' },
  { key: "logRequests", flag: "log-requests", env: "KBQA_LOG_REQUESTS", kind: "bool", def: () => false, help: "log one line per request" },
  { key: "testFakeTimeFile", flag: "test-fake-time-file", env: "KBQA_TEST_FAKE_TIME_FILE", kind: "path", help: "TESTS ONLY: usage reports take 'now' (epoch ms) from this file" },
];

export class ConfigError extends Error {}

/** flags: parsed `--name value` pairs (without dashes). */
export function loadConfig(flags: Record<string, string | boolean>, env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) {
    const raw = flags[f.flag] ?? env[f.env];
    let v: unknown = raw === undefined || raw === "" ? f.def?.(cwd) : raw;
    if (v === undefined) continue;
    if (f.kind === "int" && typeof v !== "number") {
      const s = String(v);
      if (!/^-?\d+$/.test(s)) throw new ConfigError(`--${f.flag} (${f.env}) must be an integer, got "${s}"`);
      v = Number(s);
    } else if (f.kind === "bool" && typeof v !== "boolean") {
      v = ["1", "true", "yes", "on"].includes(String(v).toLowerCase());
    } else if (f.kind === "path") {
      v = resolve(cwd, String(v));
    }
    out[f.key] = v;
  }
  if (!Value.Check(ConfigSchema, out)) {
    const e = [...Value.Errors(ConfigSchema, out)][0]!;
    const f = FIELDS.find((x) => `/${x.key}` === e.path);
    throw new ConfigError(`${f ? `--${f.flag} (${f.env})` : e.path}: ${e.message}`);
  }
  return out as Config;
}
