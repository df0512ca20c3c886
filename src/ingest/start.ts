/**
 * Wiring of ingestion into the server (server.ts calls these two): the LanceDB index of the
 * configured embedder, and the scheduler with its worker pool.
 */
import { join } from "node:path";
import type { Config } from "../config.ts";
import type { AppContext } from "../context.ts";
import type { ModelRegistry } from "../models/registry.ts";
import { openLanceIndex, type LanceIndex } from "../store/lance.ts";
import { WorkerPool } from "./pool.ts";
import { startScheduler, type Scheduler } from "./scheduler.ts";

export async function openVectorIndex(config: Config, models: ModelRegistry): Promise<LanceIndex> {
  const e = models.embedder();
  return openLanceIndex(join(config.dataDir, "lance"), e.id, e.dims);
}

/** Starts consuming the jobs table; its close runs before the index and the database close. */
export function startIngestion(ctx: AppContext, vectors: LanceIndex): Scheduler {
  const { config } = ctx;
  const pool = new WorkerPool({ size: config.workers, timeoutMs: config.ingestTimeoutMs, memoryBytes: config.ingestMemoryBytes });
  const scheduler = startScheduler({
    db: ctx.db, blobs: ctx.blobs, vectors, models: ctx.models, pool, log: ctx.log,
    now: () => ctx.clock.now(), maxAttempts: config.ingestMaxAttempts, workers: config.workers,
  });
  ctx.onClose(() => scheduler.close());
  return scheduler;
}
