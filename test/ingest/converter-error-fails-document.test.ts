import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { originalKey } from "../../src/store/blob-keys.ts";
import { newId } from "../../src/store/ids.ts";
import type { ModelRegistry } from "../../src/models/registry.ts";
import type { LanceIndex } from "../../src/store/lance.ts";
import { parseJob, type IngestDeps } from "../../src/ingest/ingest-job.ts";
import { claim, type JobRow } from "../../src/ingest/job-store.ts";
import { IngestFailure } from "../../src/ingest/parsed.ts";
import { WorkerCrash, WorkerExited, WorkerPool } from "../../src/ingest/pool.ts";
import { asDocumentFailure } from "../../src/ingest/worker.ts";
import { pdfDeclaringPageCount } from "../convert/pdf-page-count-fixture.ts";

// An ordinary exception inside a converter was answered by the worker as a crash: retried three times,
// then FAILED with "the document crashed the ingestion worker 3 times" although no process had exited.

test("an unexpected converter exception becomes a short document failure", () => {
  const f = asDocumentFailure(new RangeError("Array length must be a positive integer\n    at mapWindowed (pdf.ts:57:15)"));
  expect(f).toBeInstanceOf(IngestFailure);
  // The runtime's words mean nothing to the uploader (they go to the log).
  expect(f.message).toBe("could not convert the document: the converter failed on its content (a fault on our side; the server log has the details)");
  expect(asDocumentFailure(new Error("x".repeat(1000))).message).toBe(f.message);
  const own = new IngestFailure("the document contains no text to index");
  expect(asDocumentFailure(own)).toBe(own);
});

describe("failure reasons of a parse job", () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-convert-error-"));
  const org = newId(), corpus = newId();
  const models = { embedder: () => ({ id: "none", dims: 1 }), summariser: () => ({ id: "none" }), tokens: () => ({ id: "none" }) } as unknown as ModelRegistry;
  const vectors = { deleteDocument: async () => {} } as unknown as LanceIndex;
  let db: Db;
  let pool: WorkerPool;
  let deps: IngestDeps;

  beforeAll(() => {
    db = openDb(join(dir, "data"));
    pool = new WorkerPool({ size: 1, timeoutMs: 60_000, memoryBytes: 2 ** 30 });
    deps = { db, blobs: new FsBlobStore(join(dir, "blobs")), vectors, models, pool, now: Date.now, log: { info() {}, error() {} }, maxAttempts: 3 };
  });
  afterAll(async () => {
    await pool?.close();
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function claimedDoc(bytes: Uint8Array, contentType: string): Promise<JobRow> {
    const id = newId();
    await deps.blobs.put(originalKey(org, id), bytes);
    const now = Date.now();
    db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, created_at, updated_at, blob_key, generation)
              VALUES (?, ?, ?, 'f', ?, 'PROCESSING', ?, 'u', ?, ?, ?, 1)`)
      .run(id, org, corpus, contentType, bytes.byteLength, now, now, originalKey(org, id));
    const jobId = Number(db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now).lastInsertRowid);
    return claim(db, { id: jobId, org_id: org, document_id: id, generation: 1, state: "queued", attempts: 0 } as JobRow, now)!;
  }
  const statusMsg = (job: JobRow) => db.query<{ status: string; status_msg: string }, [string]>("SELECT status, status_msg FROM documents WHERE id = ?").get(job.document_id)!;

  test("a PDF declaring /Count -5 fails at its first attempt with the reason, in a real worker", async () => {
    const job = await claimedDoc(pdfDeclaringPageCount("-5"), "application/pdf");
    expect(await parseJob(deps, job)).toEqual({ outcome: "failed" });
    expect(statusMsg(job)).toEqual({ status: "FAILED", status_msg: "could not read PDF: its page tree declares an invalid page count (-5)" });
  }, 60_000);

  test("after the last attempt, an error answer is named by its first line and only an exit is a crash", async () => {
    const fake = (err: Error) => ({ ...deps, maxAttempts: 1, pool: { run: async () => { throw err; } } as unknown as WorkerPool });
    const answered = await claimedDoc(new TextEncoder().encode("text"), "text/plain");
    await parseJob(fake(new WorkerCrash("Error: model file unreadable\n    at load (enrich.ts:1:1)")), answered);
    expect(statusMsg(answered).status_msg).toBe("ingestion failed after 1 attempts: Error: model file unreadable");
    const exited = await claimedDoc(new TextEncoder().encode("text"), "text/plain");
    await parseJob(fake(new WorkerExited("the ingestion worker exited (code SIGSEGV)")), exited);
    expect(statusMsg(exited).status_msg).toBe("ingestion failed: the document crashed the ingestion worker 1 times");
  });
});
