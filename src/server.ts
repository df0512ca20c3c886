import "./http/typebox-setup.ts"; // first: schema modules below depend on it
import type { Config } from "./config.ts";
import { stderrLogger, type AppContext } from "./context.ts";
import { openDb } from "./store/db.ts";
import { lockDataDir } from "./store/data-lock.ts";
import { warnIfShared } from "./store/data-dir-mode.ts";
import { systemClock, type Clock } from "./store/time.ts";
import { buildApp, buildServices } from "./http/app.ts";
import { createModelRegistry } from "./models/registry.ts";
import { FsBlobStore } from "./store/fs-blob.ts";
import { sweepTemps } from "./store/temp-sweep.ts";
import { startVectorDrops } from "./documents/vector-drops.ts";
import { removePreviews } from "./ingest/previews.ts";
import { startChunkDrops } from "./documents/chunk-drops.ts";
import { startCorpusDrops } from "./corpus/drops.ts";
import { CORPUS_MARKS } from "./corpus/marks.ts";
import { openVectorIndex, startIngestion, startVectorIndexing } from "./ingest/start.ts";
import { join } from "node:path";
import { startIdleMaintenance } from "./runtime/idle.ts";
import { startPurge } from "./store/purge.ts";
import { FINISHED_JOBS } from "./ingest/job-store.ts";
import { SPENT_GRANTS } from "./storage/grants.ts";
import { EXPIRED_TOKENS } from "./auth/tokens.ts";
import { SERVER_BODY_LIMIT } from "./http/body-limit.ts";

export interface Running {
  url: string;
  port: number;
  /** What the commit route does after writing jobs: wakes the ingestion scheduler now instead of at its next poll (for jobs written straight into the database, as the benchmarks do). */
  wakeIngestion(): void;
  stop(): Promise<void>;
}

/** Opens the stores, builds the app and listens. stop() drains in-flight requests, then closes everything. */
export async function startServer(config: Config, clock: Clock = systemClock): Promise<Running> {
  const lock = lockDataDir(config.dataDir);
  let db: ReturnType<typeof openDb>;
  try {
    db = openDb(config.dataDir, stderrLogger);
  } catch (e) {
    lock.release();
    throw e;
  }
  warnIfShared(config.dataDir, stderrLogger); // once the directory is known to work: a start that fails says one thing
  const closers: (() => unknown)[] = [];
  const models = await createModelRegistry({
    modelsDir: config.modelsDir,
    threads: config.llamaThreads,
    maxSequences: config.llamaSequences,
    queueTimeoutMs: config.modelQueueTimeoutMs,
    remote: config.remoteUrl
      ? { url: config.remoteUrl, apiKey: config.remoteKey, chatModel: config.remoteChatModel, embeddingModel: config.remoteEmbeddingModel }
      : undefined,
  });
  closers.push(() => models.close());
  const blobs = new FsBlobStore(join(config.dataDir, "blobs"));
  const vectors = await openVectorIndex(config, models, db);
  closers.push(() => vectors.close());
  // The approximate index is LanceDB's fallback while the in-memory vector copy loads or where it
  // cannot be kept (store/lance.ts); built in the background from ANN_MIN_ROWS rows.
  closers.push(startVectorIndexing(vectors, stderrLogger));
  const ctx: AppContext = { config, db, clock, log: stderrLogger, models, blobs, vectors, onClose: (fn) => closers.push(fn) };
  const drops = startVectorDrops(db, vectors, stderrLogger, (orgId, documentId, generation) => removePreviews(blobs, stderrLogger, orgId, documentId, generation));
  ctx.vectorDrops = drops;
  closers.push(() => drops.close());
  const chunkDrops = startChunkDrops(db, stderrLogger);
  ctx.chunkDrops = chunkDrops;
  closers.push(() => chunkDrops.close());
  // Marking a corpus' documents records their chunk and vector drops: those loops start on them at once.
  const corpusDrops = startCorpusDrops(db, CORPUS_MARKS, stderrLogger, () => {
    chunkDrops.kick();
    drops.kick();
  });
  ctx.corpusDrops = corpusDrops;
  closers.push(() => corpusDrops.close());
  const purge = startPurge(db, [FINISHED_JOBS, SPENT_GRANTS, EXPIRED_TOKENS], {
    afterMs: config.purgeAfter * 1000,
    everyMs: config.purgeInterval * 1000,
    clock,
    log: stderrLogger,
  });
  closers.push(() => purge.close());
  const services = await buildServices(ctx);
  let touch = () => {}; // the idle timer below needs the app, the app's request hook needs the timer
  const app = buildApp(ctx, services, () => touch());
  startIngestion(ctx, vectors);
  // Gives memory back after 5 s without requests or ingestion (runtime/idle.ts); stopped first at shutdown.
  const idle = startIdleMaintenance({
    busy: () => (app.server?.pendingRequests ?? 0) > 0 || ctx.ingestionIdle?.() === false,
    onError: (e) => ctx.log.error("idle maintenance failed", { error: String(e) }),
  });
  touch = () => idle.touch();
  closers.push(() => idle.stop());
  // Bun closes a connection whose request has sent nothing for idleTimeout seconds (Elysia passes
  // 30), even while the handler is still working: a summary wait (30 s by default) or an answer
  // from a local model on a loaded machine ended in a dropped socket. 255 s is Bun's maximum.
  // reusePort off: Elysia turns it on, and then a second server (other data) bound the same port
  // and the kernel spread requests between the two.
  /** Closes everything opened above, newest first, then the database and the lock. */
  const closeAll = async () => {
    for (const fn of closers.reverse()) {
      try {
        await fn();
      } catch (e) {
        ctx.log.error("error while closing", { error: String(e) });
      }
    }
    // Everything into the main file: statements kept prepared for the life of the connection
    // stop close() from checkpointing, and kbqa.sqlite alone would miss all recent writes.
    try {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (e) {
      ctx.log.error("could not checkpoint the database at stop", { error: String(e) });
    }
    db.close();
    lock.release();
  };
  try {
    app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: SERVER_BODY_LIMIT, idleTimeout: 255, reusePort: false });
  } catch (e) {
    // An address that cannot be listened on: the caller exits next, and exiting with LanceDB,
    // the models and the background work still running aborted the process now and then (exit 134).
    await closeAll();
    throw e;
  }
  const server = app.server!;
  // What writers killed with a previous server left behind, removed in the background.
  let sweeping = true;
  const sweep = sweepTemps(blobs.root, ctx.log, () => !sweeping).catch((e) => ctx.log.error("the sweep of temporary files failed", { error: String(e) }));
  closers.push(async () => {
    sweeping = false;
    await sweep;
  });
  let stopping: Promise<void> | undefined;
  return {
    // An IPv6 literal takes brackets in a URL: "http://::1:8080" is no URL, and the listening line is one.
    url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`,
    port: server.port!,
    wakeIngestion: () => ctx.wakeIngestion?.(),
    stop() {
      stopping ??= (async () => {
        await server.stop(false); // stop accepting; wait for in-flight requests
        await closeAll();
      })();
      return stopping;
    },
  };
}
