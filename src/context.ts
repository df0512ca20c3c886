import type { Config } from "./config.ts";
import type { Db } from "./store/db.ts";
import type { Clock } from "./store/time.ts";
import type { ModelRegistry } from "./models/registry.ts";
import type { BlobStore } from "./store/blob.ts";
import type { VectorIndex } from "./store/vector.ts";
import type { QueryRules } from "./http/query-once.ts";

/**
 * Everything a route or service may need, built once at start by server.ts and passed down.
 * Domains add their stores here (blob store, vector index, models, ingestion queue).
 */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  /** Every model call goes through this (built-in, local or remote tier). */
  models: ModelRegistry;
  /** Object storage under <data>/blobs. */
  blobs: BlobStore;
  /** Vectors and full-text index (LanceDB under <data>/lance); set by the ingestion wiring in server.ts. */
  vectors: VectorIndex;
  /** Carries out the vector drops recorded by deletes now instead of at its next poll (documents/vector-drops.ts); set in server.ts. */
  vectorDrops?: { kick(): void };
  /** Marks the chunks of a deleted corpus' documents now instead of at its next poll (documents/chunk-drops.ts); set in server.ts. */
  chunkDrops?: { kick(): void };
  /** Marks the documents and sessions of a deleted corpus now instead of at its next poll (corpus/drops.ts); set in server.ts. */
  corpusDrops?: { kick(): void };
  /** Tells the ingestion scheduler a job was queued, so it need not wait for its next poll. */
  wakeIngestion?: () => void;
  /** Whether ingestion has no job in flight (idle-time maintenance waits for it); set with wakeIngestion. */
  ingestionIdle?: () => boolean;
  /** Why ingestion is paused (a full or read-only data volume), or null; set with wakeIngestion. */
  ingestionPaused?: () => string | null;
  /** What each route declares of its query string, for the checks Elysia skips (http/query-once.ts); set by buildApp. */
  queryRules?: QueryRules;
  /** Run at shutdown, in reverse order of registration. */
  onClose: (fn: () => unknown | Promise<unknown>) => void;
}

export interface Logger {
  info(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
}

/** Logs go to stderr so stdout keeps only the CLI's contract lines (JSON, "kbqa listening on …"). */
export const stderrLogger: Logger = {
  info: (msg, extra) => console.error(JSON.stringify({ level: "info", time: new Date().toISOString(), msg, ...extra })),
  error: (msg, extra) => console.error(JSON.stringify({ level: "error", time: new Date().toISOString(), msg, ...extra })),
};
