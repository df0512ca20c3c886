import { Type as T, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { resolve } from "node:path";
import { cpus } from "node:os";
import { isIP } from "node:net";
import { describe } from "./http/validation-message.ts";

/**
 * The one place that reads the environment. Flags win over KBQA_* variables, which win over
 * defaults; the result is validated once with TypeBox and passed down as a plain object.
 */
/**
 * Longest lifetime a URL or access-token setting may give, seconds: 100 years. An expiry must be a
 * date a response can carry (years up to 9999, RFC 3339); a lifetime of thousands of years made
 * every upload init store its document and then fail to write `expiresAt`.
 */
export const MAX_LIFETIME_S = 100 * 365 * 86400;

export const ConfigSchema = T.Object({
  dataDir: T.String({ minLength: 1 }),
  modelsDir: T.String({ minLength: 1 }),
  host: T.String({ minLength: 1 }),
  port: T.Integer({ minimum: 0, maximum: 65535 }),
  /** Largest upload accepted by the storage route, bytes. */
  maxUploadBytes: T.Integer({ minimum: 1 }),
  /** Lifetime of presigned upload URLs, seconds. */
  uploadUrlTtl: T.Integer({ minimum: 1, maximum: MAX_LIFETIME_S }),
  /** Lifetime of presigned download and preview URLs, seconds. */
  downloadUrlTtl: T.Integer({ minimum: 1, maximum: MAX_LIFETIME_S }),
  /** Upper bound for an access token's ttl, seconds. */
  maxTokenTtl: T.Integer({ minimum: 11, maximum: MAX_LIFETIME_S }),
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
  remoteUrl: T.Optional(T.String({ pattern: "^https?://" })),
  remoteKey: T.Optional(T.String({ minLength: 1 })),
  remoteChatModel: T.Optional(T.String({ minLength: 1 })),
  remoteEmbeddingModel: T.Optional(T.String({ minLength: 1 })),
  /** PDF pages given preview tiles per document; later pages' tiles stay 404. 0: no previews. */
  previewMaxPages: T.Integer({ minimum: 0 }),
  /** Bytes of preview tiles per document (or previewBytesRatio × the original's size when larger): rendering stops before a page that would pass it. */
  previewMaxBytes: T.Integer({ minimum: 0 }),
  /** Preview bytes allowed per byte of the original, for originals large enough that this exceeds previewMaxBytes (scans). */
  previewBytesRatio: T.Integer({ minimum: 0, maximum: 1000 }),
  /** Previews are not written when the data volume would be left with less free space than this, bytes. */
  previewReserveBytes: T.Integer({ minimum: 0 }),
  /** Chunks re-embedded per batch when the embedding model changed (the rebuild yields between batches). */
  reembedBatch: T.Integer({ minimum: 1, maximum: 4096 }),
  /** Pause between re-embedding batches, milliseconds: leaves CPU to queries on small machines. */
  reembedPauseMs: T.Integer({ minimum: 0, maximum: 60_000 }),
  /** Spent bookkeeping rows (finished jobs, spent upload grants, expired access tokens) are deleted this long after they were spent, seconds. */
  purgeAfter: T.Integer({ minimum: 0 }),
  /** Pause between two purges of spent bookkeeping rows, seconds. */
  purgeInterval: T.Integer({ minimum: 1, maximum: 86400 }),
  /** Origins allowed to call from a browser: "*" (any), "none", or a comma-separated list of origins. */
  corsOrigins: T.String({ pattern: "^(\\*|none|https?://[^,\\s]+(\\s*,\\s*https?://[^,\\s]+)*)$" }),
  /** Log level: errors only, or one line per request too. */
  logRequests: T.Boolean(),
  /** TESTS ONLY: usage reports read their clock (epoch ms) from this file. Never set in production. */
  testFakeTimeFile: T.Optional(T.String({ minLength: 1 })),
});
export type Config = Static<typeof ConfigSchema>;

interface Field {
  key: keyof Config;
  flag: string;
  env: string;
  /** url: an http(s) URL; host: an IP address or a host name (checked beyond the schema). */
  kind: "string" | "int" | "bool" | "path" | "url" | "host";
  def?: (cwd: string) => string | number | boolean | undefined;
  /** How --help states a default that depends on the machine. */
  defaultText?: string;
  help: string;
  /** What a valid value is, in words, for error messages (numbers and booleans derive it from the schema). */
  allowed?: string;
}

/** " (default: …)" for --help, from the same definition the configuration uses. */
export function defaultNote(f: Field): string {
  const d = defaultText(f);
  return d === undefined ? "" : ` (default: ${d})`;
}

function defaultText(f: Field): string | undefined {
  if (f.defaultText) return f.defaultText;
  const v = f.def?.(".");
  if (v === undefined) return undefined;
  return v === false ? "off" : v === true ? "on" : String(v);
}

export const FIELDS: Field[] = [
  { key: "dataDir", flag: "data", env: "KBQA_DATA_DIR", kind: "path", def: () => "./data", help: "data directory (SQLite, LanceDB, blobs)", allowed: "a directory path" },
  { key: "modelsDir", flag: "models", env: "KBQA_MODELS_DIR", kind: "path", def: () => "./models", help: "models directory", allowed: "a directory path" },
  { key: "host", flag: "host", env: "KBQA_HOST", kind: "host", def: () => "127.0.0.1", help: "address to listen on", allowed: "an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::1, localhost)" },
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
  { key: "publicUrl", flag: "public-url", env: "KBQA_PUBLIC_URL", kind: "url", help: "origin of presigned storage URLs (default: request origin)", allowed: "an http:// or https:// URL (e.g. https://kb.example.com)" },
  { key: "remoteUrl", flag: "remote-url", env: "KBQA_REMOTE_URL", kind: "url", help: "OpenAI-compatible server base URL", allowed: "an http:// or https:// URL (e.g. http://127.0.0.1:11434/v1)" },
  { key: "remoteKey", flag: "remote-key", env: "KBQA_REMOTE_KEY", kind: "string", help: "API key for the remote server", allowed: "an API key" },
  { key: "remoteChatModel", flag: "remote-chat-model", env: "KBQA_REMOTE_CHAT_MODEL", kind: "string", help: "remote chat model name", allowed: "a model name" },
  { key: "remoteEmbeddingModel", flag: "remote-embedding-model", env: "KBQA_REMOTE_EMBEDDING_MODEL", kind: "string", help: "remote embedding model name", allowed: "a model name" },
  { key: "previewMaxPages", flag: "preview-max-pages", env: "KBQA_PREVIEW_MAX_PAGES", kind: "int", def: () => 500, help: "PDF pages with preview tiles, per document (0: none)" },
  { key: "previewMaxBytes", flag: "preview-max-bytes", env: "KBQA_PREVIEW_MAX_BYTES", kind: "int", def: () => 64 * 1024 * 1024, help: "preview tile bytes per document (see --preview-bytes-ratio)" },
  { key: "previewBytesRatio", flag: "preview-bytes-ratio", env: "KBQA_PREVIEW_BYTES_RATIO", kind: "int", def: () => 20, help: "preview bytes per byte of the original, when more than --preview-max-bytes" },
  { key: "previewReserveBytes", flag: "preview-reserve-bytes", env: "KBQA_PREVIEW_RESERVE_BYTES", kind: "int", def: () => 1024 * 1024 * 1024, help: "free space on the data volume previews never use, bytes" },
  { key: "reembedBatch", flag: "reembed-batch", env: "KBQA_REEMBED_BATCH", kind: "int", def: () => 64, help: "chunks per re-embedding batch after an embedding model change" },
  { key: "reembedPauseMs", flag: "reembed-pause-ms", env: "KBQA_REEMBED_PAUSE_MS", kind: "int", def: () => 0, help: "pause between re-embedding batches, ms" },
  { key: "purgeAfter", flag: "purge-after", env: "KBQA_PURGE_AFTER", kind: "int", def: () => 7 * 86400, help: "finished jobs, spent upload URLs and expired access tokens are deleted this long after, seconds" },
  { key: "purgeInterval", flag: "purge-interval", env: "KBQA_PURGE_INTERVAL", kind: "int", def: () => 600, help: "pause between purges of those rows, seconds" },
  { key: "corsOrigins", flag: "cors-origins", env: "KBQA_CORS_ORIGINS", kind: "string", def: () => "*", help: 'browser origins allowed: "*", "none" or a comma-separated list', allowed: '"*", "none" or a comma-separated list of http:// or https:// origins (e.g. https://a.example,https://b.example)' },
  { key: "logRequests", flag: "log-requests", env: "KBQA_LOG_REQUESTS", kind: "bool", def: () => false, help: "log one line per request" },
  { key: "testFakeTimeFile", flag: "test-fake-time-file", env: "KBQA_TEST_FAKE_TIME_FILE", kind: "path", help: "TESTS ONLY: usage reports take 'now' (epoch ms) from this file", allowed: "a file path" },
];

export class ConfigError extends Error {}

/** An http:// or https:// URL with a host (what --public-url, --remote-url and the CLI's URL flags take). */
export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** An IP address, or a host name of letters, digits and hyphens (not all-numeric like 999.1.1.1). */
function isHost(s: string): boolean {
  if (isIP(s)) return true;
  const labels = s.split(".");
  return s.length <= 253 && labels.every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l)) && !/^\d+$/.test(labels.at(-1)!);
}

const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off"];

/** A word a boolean setting accepts as its value (true, off, 1, …, any case). */
export function isBooleanWord(s: string): boolean {
  return TRUE.includes(s.toLowerCase()) || FALSE.includes(s.toLowerCase());
}

/** What a valid value of the field is, in words: its own text, or derived from the schema. */
function allowedText(f: Field): string {
  if (f.allowed) return f.allowed;
  if (f.kind === "bool") return "true or false";
  return f.kind === "int" ? describe(ConfigSchema.properties[f.key] as TSchema) : "a value";
}

/** How an error names where a setting came from: the flag, or the flag and the variable that was set. */
export function settingLabel(f: Field, flags: Record<string, string | boolean>, env: Record<string, string | undefined> = process.env): string {
  return flags[f.flag] === undefined && env[f.env] ? `--${f.flag} (${f.env})` : `--${f.flag}`;
}

/**
 * flags: parsed `--name value` pairs (without dashes). A flag given with an empty value is an
 * error (the operator typed something that is not a setting); an empty variable counts as unset,
 * as shells and container files commonly leave them.
 *
 * uses: the settings the caller reads (default: all). The variable of any other is not read, so
 * a KBQA_PORT meant for the server does not stop `kbqa org list` when it is wrong; such a setting
 * keeps its default. A flag is checked whatever it sets: it was written on this command line.
 */
export function loadConfig(
  flags: Record<string, string | boolean>,
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
  uses?: ReadonlySet<keyof Config>,
): Config {
  const out: Record<string, unknown> = {};
  const given: Record<string, string> = {};
  for (const f of FIELDS) {
    const label = settingLabel(f, flags, env);
    const flag = flags[f.flag];
    const variable = uses && !uses.has(f.key) ? undefined : env[f.env];
    const raw = flag !== undefined ? flag : variable === "" ? undefined : variable;
    const bad = (s: string) => new ConfigError(`${label}: must be ${allowedText(f)}, got "${s}"`);
    if (raw === "" || (raw === true && f.kind !== "bool")) {
      const d = defaultText(f);
      throw new ConfigError(`--${f.flag} is empty; give ${allowedText(f)}, or leave the flag out ${d === undefined ? "to leave it unset" : `for the default (${d})`}`);
    }
    let v: unknown = raw === undefined ? f.def?.(cwd) : raw;
    if (v === undefined) continue;
    if (typeof raw === "string") given[f.key] = raw;
    if (f.kind === "int" && typeof v !== "number") {
      const s = String(v);
      if (!/^-?\d+$/.test(s) || !Number.isSafeInteger(Number(s))) throw bad(s);
      v = Number(s);
    } else if (f.kind === "bool" && typeof v !== "boolean") {
      const s = String(v).toLowerCase();
      if (!TRUE.includes(s) && !FALSE.includes(s)) throw bad(String(v));
      v = TRUE.includes(s);
    } else if (f.kind === "path") {
      v = resolve(cwd, String(v));
    } else if ((f.kind === "url" && !isHttpUrl(String(v))) || (f.kind === "host" && !isHost(String(v)))) {
      throw bad(String(v));
    }
    out[f.key] = v;
  }
  if (!Value.Check(ConfigSchema, out)) {
    // Ranges and patterns live in the schema; the message says them in words.
    const e = [...Value.Errors(ConfigSchema, out)][0]!;
    const f = FIELDS.find((x) => `/${x.key}` === e.path);
    if (!f) throw new ConfigError(`${e.path}: ${e.message}`);
    throw new ConfigError(`${settingLabel(f, flags, env)}: must be ${allowedText(f)}, got "${given[f.key] ?? String(out[f.key])}"`);
  }
  return out as Config;
}
