/**
 * Wiring of ingestion into the server (server.ts calls these two): the vector index, and the
 * scheduler with its worker pool.
 */
import { join } from "node:path";
import type { Config } from "../config.ts";
import { stderrLogger, type AppContext } from "../context.ts";
import type { ModelRegistry } from "../models/registry.ts";
import type { Db } from "../store/db.ts";
import { openLanceIndex, type LanceIndex } from "../store/lance.ts";
import { WorkerPool } from "./pool.ts";
import { openReembeddingIndex } from "./reembed.ts";
import { startScheduler, type Scheduler } from "./scheduler.ts";

/**
 * With the database: the index that records which model built its table and re-embeds in the
 * background when the configured embedding model changed (ingest/reembed.ts). Without it
 * (scripts): the configured embedder's table alone.
 */
export async function openVectorIndex(config: Config, models: ModelRegistry, db?: Db): Promise<LanceIndex> {
  const dir = join(config.dataDir, "lance");
  if (!db) {
    const e = models.embedder();
    return openLanceIndex(dir, e.id, e.dims, { log: stderrLogger });
  }
  return openReembeddingIndex({
    dir, db, models, log: stderrLogger, now: Date.now,
    batch: config.reembedBatch ?? 64, pauseMs: config.reembedPauseMs ?? 0,
  });
}

/** How often the background check for the approximate vector index runs. */
export const VECTOR_INDEX_CHECK_MS = 5 * 60_000;

/**
 * Builds the approximate vector index in the background once the table reaches
 * ANN_MIN_ROWS (lance.ts): at start, then every `everyMs`. Queries never wait for it: they
 * scan exactly until the index exists. Returns the stop function.
 */
export function startVectorIndexing(vectors: LanceIndex, log: AppContext["log"], everyMs = VECTOR_INDEX_CHECK_MS): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let done = false;
  let stopped = false;
  const check = () => {
    if (done || stopped) return;
    running = vectors.ensureVectorIndex().then(
      (has) => void (done = has),
      (e) => log.error("vector index build failed; searches stay exact", { error: String(e) }),
    );
  };
  const timer = setInterval(check, everyMs);
  timer.unref?.();
  setTimeout(check, 0);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

/** Starts consuming the jobs table; its close runs before the index and the database close. */
export function startIngestion(ctx: AppContext, vectors: LanceIndex): Scheduler {
  const { config } = ctx;
  const pool = new WorkerPool({ size: config.workers, timeoutMs: config.ingestTimeoutMs, memoryBytes: config.ingestMemoryBytes, idleMs: config.workerIdleMs });
  const scheduler = startScheduler({
    db: ctx.db, blobs: ctx.blobs, vectors, models: ctx.models, pool, log: ctx.log,
    now: () => ctx.clock.now(), maxAttempts: config.ingestMaxAttempts, workers: config.workers,
    previews: { maxPages: config.previewMaxPages, maxBytes: config.previewMaxBytes, bytesRatio: config.previewBytesRatio, reserveBytes: config.previewReserveBytes, dataDir: config.dataDir },
  });
  ctx.onClose(() => scheduler.close());
  ctx.wakeIngestion = () => scheduler.wake();
  ctx.ingestionIdle = () => scheduler.running() === 0;
  ctx.ingestionPaused = () => scheduler.paused();
  return scheduler;
}
