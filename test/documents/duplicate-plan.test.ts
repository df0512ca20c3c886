// The duplicate-content check of every commit read each live document of the corpus (21 ms per
// commit at 10,000 documents, ~100 ms at 50,000, inside the commit's write transaction): without
// statistics SQLite preferred documents_corpus, which spares the ORDER BY's sort, to the hash
// index. The plan is checked on the server's own database with the statement commit runs; the
// answer over HTTP still names the oldest live document with those bytes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put, sql, upload } from "./helpers.ts";
import { DUPLICATE_SQL } from "../../src/documents/commit.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
});
afterAll(() => k.stop());

test("commit's duplicate check finds candidates through the hash index", () => {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    const plan = (db.query(`EXPLAIN QUERY PLAN ${DUPLICATE_SQL}`).all("o", "c", "h", "d") as { detail: string }[]).map((p) => p.detail);
    expect(plan[0]).toContain("USING INDEX documents_hash (org_id=? AND corpus_id=? AND content_hash=?)");
  } finally {
    db.close();
  }
});

test("among several documents with the same bytes, the oldest live one is named; FAILED and deleted ones do not count", async () => {
  const text = "same bytes " + crypto.randomUUID();
  const hash = createHash("sha256").update(text).digest("hex");
  // Documents with those bytes in every state the check must tell apart, oldest first.
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await initOk(a, { corpusId, filename: `d${i}.md` })).document.id);
  const [deleted, failed, oldest, newer] = ids as [string, string, string, string];
  sql(k, "UPDATE documents SET content_hash = ?, status = 'READY', deleted_at = 10, created_at = 1 WHERE id = ?", hash, deleted);
  sql(k, "UPDATE documents SET content_hash = ?, status = 'FAILED', created_at = 2 WHERE id = ?", hash, failed);
  sql(k, "UPDATE documents SET content_hash = ?, status = 'READY', created_at = 4 WHERE id = ?", hash, newer);
  sql(k, "UPDATE documents SET content_hash = ?, status = 'READY', created_at = 3 WHERE id = ?", hash, oldest);
  // Unrelated documents of the corpus, which the check must not read its way through to decide.
  for (let i = 0; i < 5; i++) expect((await upload(a, corpusId, `other ${i} ${crypto.randomUUID()}`)).commit.status).toBe(202);

  const dup = await upload(a, corpusId, text);
  expect(dup.commit.status).toBe(409);
  expect(dup.commit.body.existingDocumentId).toBe(oldest);

  const elsewhere = await initOk(a, { corpusId: await corpus(a, "elsewhere") });
  expect((await put(elsewhere.uploadUrl, text)).status).toBe(200);
  expect((await a.api("POST", `/v1/doc/${elsewhere.document.id}/commit`)).status).toBe(202);
});
