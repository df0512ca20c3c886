// A batch is committed in slices of COMMIT_ROWS chunk rows (finish-batch.ts). When a later
// slice's transaction fails, the documents an earlier slice committed are READY with their job
// done: they must stay so, with their vectors. Only the documents whose commit did not run go
// to the error handling (requeued here). The failure is a SQLite trigger refusing the second
// document's chunk rows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { originalKey } from "../../src/store/blob-keys.ts";
import { newId } from "../../src/store/ids.ts";
import { openLanceIndex, type LanceIndex } from "../../src/store/lance.ts";
import { createBuiltinEmbedder, BUILTIN_EMBED_ID } from "../../src/models/builtin-embed.ts";
import { createBuiltinSummariser } from "../../src/models/builtin-summary.ts";
import { createBuiltinTokenCounter } from "../../src/models/builtin-tokens.ts";
import type { ModelRegistry } from "../../src/models/registry.ts";
import { COMMIT_ROWS, finishBatch } from "../../src/ingest/finish-batch.ts";
import type { IngestDeps, ParsedJob } from "../../src/ingest/ingest-job.ts";
import { claim, loadDoc, type JobRow } from "../../src/ingest/job-store.ts";
import { parseDocument } from "../../src/ingest/pipeline.ts";
import type { WorkerPool } from "../../src/ingest/pool.ts";
import { utf8 } from "../convert/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-slice-"));
let db: Db;
let vectors: LanceIndex;
let deps: IngestDeps;
const org = newId(), corpus = newId();

beforeAll(async () => {
  db = openDb(join(dir, "data"));
  vectors = await openLanceIndex(join(dir, "lance"), BUILTIN_EMBED_ID, 384);
  const models = { embedder: createBuiltinEmbedder, summariser: createBuiltinSummariser, tokens: createBuiltinTokenCounter } as unknown as ModelRegistry;
  deps = { db, blobs: new FsBlobStore(join(dir, "blobs")), vectors, models, pool: {} as WorkerPool, now: Date.now, log: { info() {}, error() {} }, maxAttempts: 3 };
});
afterAll(async () => {
  await vectors?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function claimed(markdown: string): Promise<ParsedJob> {
  const id = newId();
  const now = Date.now();
  db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, created_at, updated_at, blob_key, generation)
            VALUES (?, ?, ?, 'f.md', 'text/markdown', 'PROCESSING', 10, 'u', ?, ?, ?, 1)`).run(id, org, corpus, now, now, originalKey(org, id));
  const jobId = Number(db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now).lastInsertRowid);
  const job = claim(db, { id: jobId, org_id: org, document_id: id, generation: 1, state: "queued", attempts: 0 } as JobRow, now)!;
  return { job, doc: loadDoc(db, org, id)!, parsed: await parseDocument(utf8(markdown), "text/markdown", null) };
}

const state = (id: string) => db.query<{ status: string }, [string]>("SELECT status FROM documents WHERE id = ?").get(id)!.status;
const jobState = (job: JobRow) => db.query<{ state: string }, [number]>("SELECT state FROM jobs WHERE id = ?").get(job.id)!.state;

test("a failed later slice leaves the documents an earlier slice committed READY, their job done and their vectors kept", async () => {
  // The first document alone fills a slice: the second one is committed in the next.
  const long = Array.from({ length: COMMIT_ROWS + 10 }, (_, i) => `## Part ${i}\n\n${`Sentence ${i} of the long note about pumps and valves. `.repeat(40)}\n`).join("\n");
  const a = await claimed(`# Long\n\n${long}`);
  const b = await claimed("# Short\n\nThe short note.\n");
  expect(a.parsed.chunks.length).toBeGreaterThan(COMMIT_ROWS);
  db.run(`CREATE TRIGGER refuse_b BEFORE INSERT ON chunks WHEN NEW.document_id = '${b.job.document_id}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);

  const results = await finishBatch(deps, [a, b]);
  const aId = a.job.document_id;
  const outcomeA = { outcome: results[0]!.outcome, status: state(aId), job: jobState(a.job) };
  // Whatever the queue now holds for the READY document runs as the scheduler would run it: a
  // job requeued there was found superseded and dropped its generation's vectors, the READY ones.
  for (const j of db.query<JobRow, [string]>("SELECT id, org_id, document_id, generation, state, attempts FROM jobs WHERE document_id = ? AND state = 'queued'").all(aId)) {
    const again = claim(db, j, Date.now())!;
    await finishBatch(deps, [{ job: again, doc: loadDoc(db, org, aId)!, parsed: a.parsed }]);
  }
  const rows = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM chunks WHERE document_id = ? AND deleted_at IS NULL").get(aId)!.n;
  expect({ status: state(aId), vectors: await vectors.countDocument(org, aId) }).toEqual({ status: "READY", vectors: rows });
  expect(outcomeA).toEqual({ outcome: "ready", status: "READY", job: "done" });
  // The second document's commit did not run: it goes back to the queue for another attempt.
  expect({ outcome: results[1]!.outcome, status: state(b.job.document_id), job: jobState(b.job) }).toEqual({ outcome: "requeued", status: "PROCESSING", job: "queued" });
}, 60_000);
