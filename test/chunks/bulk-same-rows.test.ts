import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { orderedId } from "../../src/store/ids.ts";
import { insertChunkSet, ROWS_PER_INSERT, type NewChunk } from "../../src/chunks/bulk.ts";
import { tempDir } from "../helpers/server.ts";

/**
 * insertChunkSet writes a set several rows per statement (a speed matter only): what it stores
 * must be what the row-by-row path (the insert trigger) stores for the same chunks, row for row
 * in the same rowid order, with the same index words, across statement boundaries (two full
 * statements and a short one).
 */
const ORG = "00000000-0000-4000-8000-00000000000a";
const CORPUS = "00000000-0000-4000-8000-00000000000b";
const DOC = "00000000-0000-4000-8000-00000000000c";
const dir = tempDir("kbqa-bulk-rows-");
afterAll(() => dir[Symbol.dispose]());

function fresh(name: string): Db {
  const db = openDb(join(dir.path, name));
  db.query("INSERT INTO orgs (id, name, created_at) VALUES (?, 'o', 0)").run(ORG);
  db.query("INSERT INTO corpora (id, org_id, name, created_at, updated_at) VALUES (?, ?, 'c', 0, 0)").run(CORPUS, ORG);
  // An earlier set, so the new one's doc_seq and rowids do not start at 1.
  db.query(`INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, hash, body, created_at) VALUES (?, ?, ?, 'd0', 1, 0, 'h', 'x', 0)`)
    .run(orderedId(), ORG, CORPUS);
  return db;
}

const dump = (db: Db) => ({
  chunks: db.query("SELECT rowid, * FROM chunks WHERE document_id = ? ORDER BY rowid").all(DOC),
  bits: db.query("SELECT * FROM chunk_bits ORDER BY term, doc_seq, word").all(),
  sets: db.query("SELECT * FROM chunk_sets ORDER BY doc_seq").all(),
});

test("a set written in multi-row statements stores what row-by-row inserts store", () => {
  const n = 2 * ROWS_PER_INSERT + 3;
  const chunks: NewChunk[] = Array.from({ length: n }, (_, i) => ({
    id: orderedId(), seq: i, pages: i % 5 ? [1 + (i % 7), 2 + (i % 7)] : [], hash: `h${i}`,
    metadata: i ? { kind: "chunk", part: i % 3, tags: i % 2 ? ["a"] : [] } : { kind: "summary" },
    body: i % 11 ? `body ${i} `.repeat(1 + (i % 50)) : null,
  }));
  const bulk = fresh("bulk");
  insertChunkSet(bulk, { orgId: ORG, corpusId: CORPUS, documentId: DOC, generation: 2, createdAt: 42 }, chunks);

  const rows = fresh("rows");
  const ins = rows.query(
    `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, metadata, body, created_at)
     VALUES (?, ?, ?, ?, 2, ?, ?, ?, ?, ?, ?, 42)`,
  );
  rows.transaction(() => {
    for (const c of chunks) ins.run(c.id, ORG, CORPUS, DOC, c.seq, JSON.stringify(c.pages), c.pages[0] ?? 0, c.hash, JSON.stringify(c.metadata), c.body);
  })();

  const a = dump(bulk);
  expect(a.chunks).toHaveLength(n);
  expect(a).toEqual(dump(rows));
  bulk.close();
  rows.close();
});
