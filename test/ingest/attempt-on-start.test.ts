// A job's attempt is spent when a worker begins it, not when it is claimed: small documents are
// claimed in groups and wait in a worker's queue, and charging them all at claim made every
// server crash count against up to 32 documents that had not started (after three crashes,
// innocent documents ended FAILED "the server stopped during ingestion 3 times").
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { newId } from "../../src/store/ids.ts";
import { WorkerPool } from "../../src/ingest/pool.ts";
import { parseJob, type IngestDeps } from "../../src/ingest/ingest-job.ts";
import { claimMany, recoverJobs, type JobRow } from "../../src/ingest/job-store.ts";
import { createBuiltinEmbedder } from "../../src/models/builtin-embed.ts";
import { createBuiltinSummariser } from "../../src/models/builtin-summary.ts";
import { createBuiltinTokenCounter } from "../../src/models/builtin-tokens.ts";
import type { ModelRegistry } from "../../src/models/registry.ts";
import type { LanceIndex } from "../../src/store/lance.ts";
import { waitFor } from "../helpers/server.ts";
import { seedDoc } from "./seed.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-attempt-on-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A worker that starts and then never answers: the first request it is sent stays running.
const stuck = join(dir, "stuck-worker.ts");
writeFileSync(stuck, `process.on("message", () => {}); process.send({ type: "ready" });`);

test("ten small jobs claimed together: only the one a worker began has spent an attempt; a stop refunds it", async () => {
  const dataDir = join(dir, "data");
  const db = openDb(dataDir);
  const pool = new WorkerPool({ size: 1, timeoutMs: 60_000, memoryBytes: 2 ** 30, command: [process.execPath, stuck] });
  try {
    const orgId = newId(), corpusId = newId();
    for (let i = 0; i < 10; i++) await seedDoc(db, dataDir, { orgId, corpusId, bytes: new TextEncoder().encode(`note ${i}`), contentType: "text/markdown" });
    const queued = db.query<JobRow, []>("SELECT id, org_id, document_id, generation, state, attempts, 8 AS size, 'text/markdown' AS content_type FROM jobs ORDER BY id").all();
    const jobs = claimMany(db, queued, Date.now());
    expect(jobs.length).toBe(10);
    const models = { embedder: createBuiltinEmbedder, summariser: createBuiltinSummariser, tokens: createBuiltinTokenCounter } as unknown as ModelRegistry;
    const deps: IngestDeps = {
      db, blobs: new FsBlobStore(join(dataDir, "blobs")), vectors: {} as LanceIndex, models, pool, now: Date.now, log: { info() {}, error() {} }, maxAttempts: 3,
    };
    const results = jobs.map((j) => parseJob(deps, j));
    const attempts = () => db.query<{ attempts: number }, []>("SELECT attempts FROM jobs ORDER BY id").all().map((r) => r.attempts);
    await waitFor(() => attempts()[0] === 1, "the first job to start in the worker", 10_000);
    // What a crash now would leave for recovery: one attempt spent, on the job that was running.
    expect(attempts()).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    await pool.close();
    expect((await Promise.all(results)).map((r) => ("outcome" in r ? r.outcome : "parsed"))).toEqual(Array(10).fill("requeued"));
    expect(db.query("SELECT state, attempts FROM jobs ORDER BY id").all()).toEqual(Array(10).fill({ state: "queued", attempts: 0 }));
    expect(recoverJobs(db, Date.now())).toEqual({ requeued: 0, enqueued: 0 });
  } finally {
    await pool.close();
    db.close();
  }
});
