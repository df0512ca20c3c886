import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { orderedId } from "../../src/store/ids.ts";
import { chunkService } from "../../src/chunks/service.ts";
import { insertChunkSet } from "../../src/chunks/bulk.ts";
import { BITS_REBUILD } from "../../src/chunks/bits-sql.ts";
import { tempDir } from "../helpers/server.ts";

/**
 * Searches keep what they read (words, live chunk sets, confirmed inexact hits) for one state of
 * the database. Every kind of write must show in the very next search: through the service's
 * own connection and through another one (ingestion workers, the CLI), to chunks and to the
 * documents that decide liveness. Writes that cannot change an organization's results (another
 * organization, another table) leave its entries in place.
 */
const ORG = "00000000-0000-4000-8000-0000000000c1";
const OTHER = "00000000-0000-4000-8000-0000000000c2";
const CORPUS = "00000000-0000-4000-8000-0000000000c3";
const CORPUS2 = "00000000-0000-4000-8000-0000000000c4";
const dir = tempDir("kbqa-cache-");
let db: Db;
let other: Database;
let svc: ReturnType<typeof chunkService>;

function addDocument(orgId: string, corpusId: string, metas: Record<string, unknown>[], generation = 1, id: string = crypto.randomUUID()) {
  const chunkIds = metas.map(() => orderedId());
  other.transaction(() => {
    other
      .query(
        `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation)
         VALUES (?, ?, ?, 'f.md', 'text/markdown', 'READY', 0, 0, 'k', ?) ON CONFLICT (id) DO UPDATE SET generation = excluded.generation`,
      )
      .run(id, orgId, corpusId, generation);
    metas.forEach((m, i) =>
      other
        .query(
          `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, metadata, body, created_at)
           VALUES (?, ?, ?, ?, ?, ?, '[1]', 1, 'h', ?, 't', 0)`,
        )
        .run(chunkIds[i]!, orgId, corpusId, id, generation, i, JSON.stringify(m)),
    );
  }).immediate();
  return { id, chunkIds };
}

const find = (json: unknown, extra: Record<string, unknown> = {}) => {
  const r = svc.search(ORG, { json: JSON.stringify(json), pageSize: 100, pageIndex: 0, ...extra });
  return { total: r.total, ids: r.items.map((c) => c.id) };
};

beforeAll(() => {
  db = openDb(dir.path);
  other = new Database(join(dir.path, "kbqa.sqlite"), { strict: true });
  other.exec("PRAGMA busy_timeout = 10000");
  for (const o of [ORG, OTHER]) db.query("INSERT INTO orgs (id, name, created_at) VALUES (?, 'o', 0)").run(o);
  for (const c of [CORPUS, CORPUS2]) db.query("INSERT INTO corpora (id, org_id, name, created_at, updated_at) VALUES (?, ?, 'c', 0, 0)").run(c, ORG);
  svc = chunkService(db, { now: () => 5 });
});
afterAll(() => {
  other.close();
  db.close();
  dir[Symbol.dispose]();
});

describe("search cache", () => {
  test("writes through another connection show in the next search", () => {
    const a = addDocument(ORG, CORPUS, [{ k: "x" }, { k: "y" }, { k: "x", a: [{ n: 1, r: "e" }] }]);
    expect(find({ k: "x" })).toEqual({ total: 2, ids: [a.chunkIds[0]!, a.chunkIds[2]!] });
    expect(find({ a: [{ n: 1 }] })).toEqual({ total: 1, ids: [a.chunkIds[2]!] });

    const b = addDocument(ORG, CORPUS2, [{ k: "x", a: [{ n: 1 }] }]);
    expect(find({ k: "x" })).toEqual({ total: 3, ids: [a.chunkIds[0]!, a.chunkIds[2]!, b.chunkIds[0]!] });
    expect(find({ a: [{ n: 1 }] })).toEqual({ total: 2, ids: [a.chunkIds[2]!, b.chunkIds[0]!] });
    expect(find({ k: "x" }, { corpusId: CORPUS2 })).toEqual({ total: 1, ids: [b.chunkIds[0]!] });

    // Another organization's writes never show, but must not leave this one stale either.
    addDocument(OTHER, CORPUS, [{ k: "x" }]);
    other.query("UPDATE chunks SET metadata = ? WHERE id = ?").run(JSON.stringify({ k: "y" }), a.chunkIds[0]!);
    expect(find({ k: "x" })).toEqual({ total: 2, ids: [a.chunkIds[2]!, b.chunkIds[0]!] });

    other.query("UPDATE chunks SET deleted_at = 1 WHERE id = ?").run(b.chunkIds[0]!);
    expect(find({ k: "x" })).toEqual({ total: 1, ids: [a.chunkIds[2]!] });
    expect(find({ a: [{ n: 1 }] })).toEqual({ total: 1, ids: [a.chunkIds[2]!] });

    // Liveness lives in documents: status, deletion, re-ingestion to a new generation.
    other.query("UPDATE documents SET status = 'PROCESSING' WHERE id = ?").run(a.id);
    expect(find({ k: "x" })).toEqual({ total: 0, ids: [] });
    other.query("UPDATE documents SET status = 'READY' WHERE id = ?").run(a.id);
    expect(find({ k: "x" })).toEqual({ total: 1, ids: [a.chunkIds[2]!] });
    const a2 = addDocument(ORG, CORPUS, [{ k: "x" }, { k: "x" }], 2, a.id);
    expect(find({ k: "x" })).toEqual({ total: 2, ids: a2.chunkIds });
    expect(find({ a: [{ n: 1 }] })).toEqual({ total: 0, ids: [] });
    other.query("UPDATE documents SET deleted_at = 1 WHERE id = ?").run(a.id);
    expect(find({ k: "x" })).toEqual({ total: 0, ids: [] });
  });

  test("writes through the service's own connection show in the next search", async () => {
    const d = addDocument(ORG, CORPUS, [{ m: 1 }, { m: 1 }, { m: 2 }]);
    expect(find({ m: 1 })).toEqual({ total: 2, ids: d.chunkIds.slice(0, 2) });
    svc.patch(ORG, d.chunkIds[2]!, { metadata: { m: 1 } });
    expect(find({ m: 1 })).toEqual({ total: 3, ids: d.chunkIds });
    await svc.remove(ORG, d.chunkIds[0]!);
    expect(find({ m: 1 })).toEqual({ total: 2, ids: d.chunkIds.slice(1) });
    expect(svc.search(ORG, { json: JSON.stringify({ m: 1 }), documentId: d.id, pageSize: 1, pageIndex: 1 }).items.map((c) => c.id)).toEqual([d.chunkIds[2]!]);
  });

  test("a chunk set written in bulk by another connection shows in the next search", () => {
    const doc = crypto.randomUUID();
    other.query(
      `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation)
       VALUES (?, ?, ?, 'f.md', 'text/markdown', 'READY', 0, 0, 'k', 1)`,
    ).run(doc, ORG, CORPUS);
    expect(find({ bulk: 1 })).toEqual({ total: 0, ids: [] });
    const ids = [orderedId(), orderedId()];
    insertChunkSet(other, { orgId: ORG, corpusId: CORPUS, documentId: doc, generation: 1, createdAt: 0 },
      ids.map((id, i) => ({ id, seq: i, pages: [1], hash: "h", metadata: { bulk: 1 }, body: "t" })));
    expect(find({ bulk: 1 })).toEqual({ total: 2, ids });
  });

  test("entries survive writes elsewhere and go with the organization's next chunk write", () => {
    const d = addDocument(ORG, CORPUS, [{ keep: 1 }, { keep: 1 }]);
    expect(find({ keep: 1 })).toEqual({ total: 2, ids: d.chunkIds });
    // Emptying the index behind the triggers' back bumps no counter: the kept words still answer.
    other.query("DELETE FROM chunk_bits WHERE term LIKE 'p:$.keep%'").run();
    addDocument(OTHER, CORPUS, [{ keep: 1 }]);
    other.query("UPDATE orgs SET name = 'renamed' WHERE id = ?").run(ORG);
    expect(find({ keep: 1 })).toEqual({ total: 2, ids: d.chunkIds });
    // Any write to this organization's chunks starts over from the (now empty) index.
    other.query("UPDATE chunks SET metadata = ? WHERE id = ?").run(JSON.stringify({ other: 1 }), d.chunkIds[0]!);
    expect(find({ keep: 1 })).toEqual({ total: 0, ids: [] });
    other.transaction(() => other.exec(BITS_REBUILD)).immediate();
    other.query("UPDATE documents SET status = 'READY' WHERE id = ?").run(d.id);
    expect(find({ keep: 1 })).toEqual({ total: 1, ids: [d.chunkIds[1]!] });
  });
});
