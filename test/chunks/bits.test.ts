import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openDb, type Db } from "../../src/store/db.ts";
import { orderedId } from "../../src/store/ids.ts";
import { chunkService } from "../../src/chunks/service.ts";
import { contains } from "../../src/chunks/containment.ts";
import { BITS_REBUILD } from "../../src/chunks/bits-sql.ts";
import { insertChunkSet } from "../../src/chunks/bulk.ts";
import { tempDir } from "../helpers/server.ts";
import { mulberry32 } from "../helpers/seeded.ts";

/**
 * The bitmap index against brute force, in-process on a real database: documents large enough
 * to span many 64-chunk words (bit 63 is the sign bit of a SQLite integer), chunks patched,
 * soft-deleted, undeleted, hard-deleted and re-ingested; after all that the trigger-kept index
 * must equal a rebuild from scratch, and every search must equal containment over live chunks.
 * Some chunk sets are written in bulk (bulk.ts, ingestion's path), one of them after row-by-row
 * chunks of the same set, and go through the same edits.
 */
const rnd = mulberry32(7);
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const meta = () => ({
  kind: pick(["chunk", "chunk", "summary"]),
  ...(rnd() < 0.7 ? { lang: pick(["en", "fr", 3, true, null]) } : {}),
  tags: ["a", "b", "c"].filter(() => rnd() < 0.4),
  sec: { n: pick([1, 2, 2.5]), t: pick(["x", "y"]) },
  authors: [{ name: pick(["ann", "bob"]), role: pick(["ed", "own"]) }],
});
const FRAGMENTS: Record<string, unknown>[] = [
  { kind: "chunk" }, { kind: "summary" }, { kind: "chunk", lang: "en" }, { lang: 3 }, { lang: true }, { lang: null },
  { tags: ["a"] }, { tags: ["a", "c"] }, { tags: [] }, { sec: { n: 2 } }, { sec: { n: 2.5, t: "y" } }, { sec: {} },
  { authors: [{ name: "ann" }] }, { authors: [{ name: "ann", role: "own" }] }, { kind: "chunk", tags: ["b"], sec: { t: "x" } },
  { kind: "none" },
];

const ORG = "00000000-0000-4000-8000-00000000000a";
const CORPUS = "00000000-0000-4000-8000-00000000000b";
const dir = tempDir("kbqa-bits-");
let db: Db;
const docs: string[] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];

function insertChunks(doc: string, generation: number, n: number) {
  const ins = db.query(
    `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, metadata, body, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'h', ?, 't', 0)`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const p = Math.floor(rnd() * 5);
      ins.run(orderedId(), ORG, CORPUS, doc, generation, i, JSON.stringify(p ? [p] : []), p, JSON.stringify(meta()));
    }
  }).immediate();
}

function insertBulk(doc: string, generation: number, n: number, from = 0) {
  insertChunkSet(db, { orgId: ORG, corpusId: CORPUS, documentId: doc, generation, createdAt: 0 },
    Array.from({ length: n }, (_, i) => {
      const p = Math.floor(rnd() * 5);
      return { id: orderedId(), seq: from + i, pages: p ? [p] : [], hash: "h", metadata: meta(), body: "t" };
    }));
}

beforeAll(() => {
  db = openDb(dir.path);
  db.query("INSERT INTO orgs (id, name, created_at) VALUES (?, 'o', 0)").run(ORG);
  db.query("INSERT INTO corpora (id, org_id, name, created_at, updated_at) VALUES (?, ?, 'c', 0, 0)").run(CORPUS, ORG);
  for (const d of docs) {
    db.query(
      `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation)
       VALUES (?, ?, ?, 'f.md', 'text/markdown', 'READY', 0, 0, 'k', 1)`,
    ).run(d, ORG, CORPUS);
  }
  insertChunks(docs[0]!, 1, 300);
  insertChunks(docs[1]!, 1, 70);
  insertChunks(docs[2]!, 1, 9);
  insertBulk(docs[3]!, 1, 200);
  insertChunks(docs[2]!, 1, 5); // the same set again, row by row after the bulk one: same doc_seq
  insertBulk(docs[2]!, 1, 70, 14);
  const all = db.query<{ rowid: number }, []>("SELECT rowid FROM chunks").all().map((r) => r.rowid);
  const some = (n: number) => Array.from({ length: n }, () => pick(all));
  for (const r of some(60)) db.query("UPDATE chunks SET metadata = ? WHERE rowid = ?").run(JSON.stringify(meta()), r);
  for (const r of some(40)) db.query("UPDATE chunks SET deleted_at = 1 WHERE rowid = ?").run(r);
  for (const r of some(10)) db.query("UPDATE chunks SET deleted_at = NULL WHERE rowid = ?").run(r);
  for (const r of some(10)) db.query("UPDATE chunks SET pages = '[4,9]', first_page = 4 WHERE rowid = ?").run(r);
  db.query("UPDATE chunks SET metadata = 'not json' WHERE rowid = ?").run(all[5]!);
  for (const r of some(15)) db.query("DELETE FROM chunks WHERE rowid = ?").run(r);
  // Re-ingestion: a new generation replaces the old chunk set.
  db.query("UPDATE documents SET generation = 2 WHERE id = ?").run(docs[1]!);
  insertChunks(docs[1]!, 2, 130);
  db.query("UPDATE documents SET generation = 2 WHERE id = ?").run(docs[3]!);
  insertBulk(docs[3]!, 2, 90);
});
afterAll(() => {
  db.close();
  dir[Symbol.dispose]();
});

describe("metadata bitmap index", () => {
  test("every fragment finds exactly the live chunks containing it, in reading order, on every page", () => {
    const svc = chunkService(db, { now: () => 0 });
    const live = db
      .query<{ id: string; metadata: string; document_id: string; pages: string }, [string]>(
        `SELECT c.id, c.metadata, c.document_id, c.pages FROM chunks c JOIN documents d ON d.id = c.document_id AND d.generation = c.generation
         WHERE c.org_id = ? AND c.deleted_at IS NULL AND d.deleted_at IS NULL ORDER BY c.doc_seq, c.first_page, c.id`,
      )
      .all(ORG);
    const parse = (s: string) => {
      try {
        return JSON.parse(s);
      } catch {
        return {};
      }
    };
    for (const fr of FRAGMENTS) {
      const want = live.filter((c) => contains(parse(c.metadata), fr)).map((c) => c.id);
      const json = JSON.stringify(fr);
      const got: string[] = [];
      for (let i = 0; ; i++) {
        const r = svc.search(ORG, { json, pageSize: 37, pageIndex: i });
        expect([json, r.total]).toEqual([json, want.length]);
        got.push(...r.items.map((c) => c.id));
        if (r.items.length < 37) break;
      }
      expect([json, got]).toEqual([json, want]);
      const inDoc = live.filter((c) => c.document_id === docs[1] && contains(parse(c.metadata), fr)).map((c) => c.id);
      const r = svc.search(ORG, { json, documentId: docs[1], pageSize: 100, pageIndex: 0 });
      expect([json, r.total, r.items.map((c) => c.id)]).toEqual([json, inDoc.length, inDoc.slice(0, 100)]);
    }
    // page: membership in the span, alone and with a fragment.
    for (const page of [1, 2, 4, 9]) {
      for (const fr of [undefined, { kind: "chunk" }, { authors: [{ name: "bob" }] }]) {
        const want = live.filter((c) => JSON.parse(c.pages).includes(page) && (!fr || contains(parse(c.metadata), fr))).map((c) => c.id);
        const r = svc.search(ORG, { page, ...(fr ? { json: JSON.stringify(fr) } : {}), pageSize: 100, pageIndex: 0 });
        expect([page, fr, r.total, r.items.map((c) => c.id)]).toEqual([page, fr, want.length, want.slice(0, 100)]);
      }
    }
    // key/value: the string and the number it spells.
    const kv = live.filter((c) => contains(parse(c.metadata), { lang: "3" }) || contains(parse(c.metadata), { lang: 3 })).map((c) => c.id);
    expect(svc.search(ORG, { key: "lang", value: "3", pageSize: 100, pageIndex: 0 }).items.map((c) => c.id)).toEqual(kv.slice(0, 100));
  });
  test("kept by triggers, it equals a rebuild from the chunks table", () => {
    const dump = () => db.query("SELECT org_key, term, doc_seq, word, bits, n FROM chunk_bits ORDER BY 1, 2, 3, 4").all();
    const kept = dump();
    expect(kept.some((r: any) => r.bits < 0)).toBe(true); // bit 63 exercised
    // One doc_seq per (document, generation), however its rows were written.
    const sets = db.query("SELECT document_id, generation, count(DISTINCT doc_seq) AS n FROM chunks GROUP BY 1, 2").all() as { n: number }[];
    expect(sets.length).toBe(6);
    expect(sets.every((r) => r.n === 1)).toBe(true);
    db.transaction(() => db.exec(BITS_REBUILD)).immediate();
    expect(dump()).toEqual(kept);
  });

});
