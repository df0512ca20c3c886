import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { openDb, type Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { originalKey } from "../../src/store/blob-keys.ts";
import { readConverted } from "../../src/ingest/converted.ts";
import { newId } from "../../src/store/ids.ts";
import { openLanceIndex, tableNameFor, type LanceIndex } from "../../src/store/lance.ts";
import { createBuiltinEmbedder, BUILTIN_EMBED_ID } from "../../src/models/builtin-embed.ts";
import { createBuiltinSummariser } from "../../src/models/builtin-summary.ts";
import { createBuiltinTokenCounter } from "../../src/models/builtin-tokens.ts";
import type { ModelRegistry } from "../../src/models/registry.ts";
import { finishBatch } from "../../src/ingest/finish-batch.ts";
import type { IngestDeps, ParsedJob } from "../../src/ingest/ingest-job.ts";
import { claim, loadDoc, type JobRow } from "../../src/ingest/job-store.ts";
import { parseDocument } from "../../src/ingest/pipeline.ts";
import type { WorkerPool } from "../../src/ingest/pool.ts";
import { utf8 } from "../convert/fixtures.ts";
import { chunkRows, docState, openTestDb, settled, vectorCount } from "./seed.ts";

const note = (i: number) => `# Note ${i}\n\nThe batch writer stores note number ${i} with its own words.\n\n- point ${i}\n`;

describe("finishBatch: one LanceDB replace and one commit for many documents, each document on its own", () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-batch-"));
  let db: Db;
  let vectors: LanceIndex;
  let deps: IngestDeps;
  const org = newId(), corpus = newId();
  afterAll(async () => {
    await vectors?.close();
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeAll(async () => {
    db = openDb(join(dir, "data"));
    vectors = await openLanceIndex(join(dir, "lance"), BUILTIN_EMBED_ID, 384);
    const models = {
      embedder: createBuiltinEmbedder, summariser: createBuiltinSummariser, tokens: createBuiltinTokenCounter,
    } as unknown as ModelRegistry;
    deps = {
      db, blobs: new FsBlobStore(join(dir, "blobs")), vectors, models, pool: {} as WorkerPool,
      now: Date.now, log: { info() {}, error() {} }, maxAttempts: 3,
    };
  });

  async function claimed(i: number): Promise<ParsedJob> {
    const id = newId();
    const now = Date.now();
    db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, created_at, updated_at, blob_key, generation)
              VALUES (?, ?, ?, 'f.md', 'text/markdown', 'PROCESSING', 10, 'u', ?, ?, ?, 1)`).run(id, org, corpus, now, now, originalKey(org, id));
    const jobId = Number(db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now).lastInsertRowid);
    const job = claim(db, { id: jobId, org_id: org, document_id: id, generation: 1, state: "queued", attempts: 0 } as JobRow, now)!;
    return { job, doc: loadDoc(db, org, id)!, parsed: await parseDocument(utf8(note(i)), "text/markdown", null) };
  }

  test("READY documents have chunk rows == vectors, leftovers replaced, a superseded one discarded with its vectors", async () => {
    const items = await Promise.all([0, 1, 2, 3].map(claimed));
    const [, leftover, superseded] = items;
    // An interrupted earlier attempt left three vectors for one document.
    await vectors.add([0, 1, 2].map(() => ({
      chunkId: newId(), orgId: org, corpusId: corpus, documentId: leftover!.job.document_id, generation: 1, text: "stale", vector: new Float32Array(384).fill(0.05),
    })));
    // Another document was replaced by a new generation while this batch was parsed.
    db.query("UPDATE documents SET generation = 2 WHERE id = ?").run(superseded!.job.document_id);

    const results = await finishBatch(deps, items);
    expect(results.map((r) => r.outcome)).toEqual(["ready", "ready", "discarded", "ready"]);
    for (const it of [items[0]!, leftover!, items[3]!]) {
      const id = it.job.document_id;
      const rows = db.query<{ id: string; metadata: string }, [string]>("SELECT id, metadata FROM chunks WHERE document_id = ? ORDER BY seq").all(id);
      expect(rows.map((r) => JSON.parse(r.metadata).kind)).toEqual(["summary", "chunk"]);
      expect(await vectors.countDocument(org, id)).toBe(rows.length);
      expect(db.query<{ status: string; stage: string | null }, [string]>("SELECT status, stage FROM documents WHERE id = ?").get(id)).toEqual({ status: "READY", stage: null });
      expect(db.query<{ state: string }, [number]>("SELECT state FROM jobs WHERE id = ?").get(it.job.id)).toEqual({ state: "done" });
      expect(await readConverted(db, deps.blobs, org, id, 1)).toBe(it.parsed.markdown);
    }
    expect(await vectors.countDocument(org, superseded!.job.document_id)).toBe(0);
    expect(db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM chunks WHERE document_id = ?").get(superseded!.job.document_id)!.n).toBe(0);
    expect(db.query<{ state: string }, [number]>("SELECT state FROM jobs WHERE id = ?").get(superseded!.job.id)).toEqual({ state: "discarded" });
  });

  test("a failed vector write leaves every document of the batch PROCESSING with its job requeued, nothing committed", async () => {
    const items = await Promise.all([10, 11].map(claimed));
    const failing = { ...deps, vectors: { ...vectors, replaceDocument: () => Promise.reject(new Error("disk full")) } as LanceIndex };
    const results = await finishBatch(failing, items);
    expect(results.map((r) => r.outcome)).toEqual(["requeued", "requeued"]);
    for (const it of items) {
      expect(docState(db, it.job.document_id).status).toBe("PROCESSING");
      expect(db.query<{ state: string; attempts: number }, [number]>("SELECT state, attempts FROM jobs WHERE id = ?").get(it.job.id)).toEqual({ state: "queued", attempts: 1 });
      expect(chunkRows(db, it.job.document_id)).toEqual([]);
    }
  });
});

test("through the server: 80 small files committed at once are all READY, chunks == vectors, in far fewer LanceDB commits", async () => {
  await using k = await startKbqa({ flags: ["--workers", "2"] });
  const db = openTestDb(k.dataDir);
  const blobs = new FsBlobStore(join(k.dataDir, "blobs"));
  const org = newId(), corpus = newId();
  const ids = Array.from({ length: 80 }, () => newId());
  for (let i = 0; i < ids.length; i++) await blobs.put(originalKey(org, ids[i]!), utf8(note(i)));
  const now = Date.now();
  db.transaction(() => ids.forEach((id, i) => {
    db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, created_at, updated_at, blob_key, generation)
              VALUES (?, ?, ?, 'f.md', 'text/markdown', 'PROCESSING', ?, 'u', ?, ?, ?, 1)`).run(id, org, corpus, note(i).length, now, now, originalKey(org, id));
    db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now);
  }))();
  await waitFor(() => settled(db, ids), "all settled", 60_000, 50);

  for (const id of ids) {
    expect(docState(db, id).status).toBe("READY");
    const rows = chunkRows(db, id);
    expect(rows.length).toBe(2);
    expect(await vectorCount(k.dataDir, org, id)).toBe(rows.length);
  }
  // One document per commit would need at least 80 table versions (one add each).
  const conn = await lancedb.connect(join(k.dataDir, "lance"));
  const table = await conn.openTable(tableNameFor(BUILTIN_EMBED_ID));
  expect(await table.version()).toBeLessThan(40);
  table.close();
  conn.close();
  db.close();
}, 120_000);
