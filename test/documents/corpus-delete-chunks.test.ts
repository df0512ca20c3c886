// Deleting a corpus used to mark every one of its chunks deleted inside the deletion transaction:
// with the metadata index triggers that is 60-70 µs a chunk, so 500,000 chunks held the event
// loop (every organization's requests) for half a minute. The transaction now records one chunk
// drop per document, and the chunks are marked in the background, a bounded number per
// transaction. These tests check the bound, that nothing reads the pending chunks as live
// meanwhile, and that a crash right after the delete loses nothing.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { orderedId } from "../../src/store/ids.ts";
import { insertChunkSet } from "../../src/chunks/bulk.ts";
import { BITS_REBUILD } from "../../src/chunks/bits-sql.ts";
import { corpusService } from "../../src/corpus/service.ts";
import { CHUNKS_PER_TURN, dropChunksTurn } from "../../src/documents/chunk-drops.ts";
import { dropCorpusTurn } from "../../src/corpus/drops.ts";
import { CORPUS_MARKS } from "../../src/corpus/marks.ts";
import { startKbqa, tempDir, waitFor } from "../helpers/server.ts";
import { newCorpus, seedDocument } from "../chunks/helpers.ts";

const count = (db: Database, sql: string, ...args: string[]) => (db.query(sql).get(...args) as { n: number }).n;

describe("the corpus deletion transaction", () => {
  test("marks no chunk itself; the drops are carried out at most CHUNKS_PER_TURN chunks per transaction and leave the index as a rebuild would", () => {
    using dir = tempDir();
    const db = openDb(dir.path);
    try {
      const org = crypto.randomUUID();
      db.query("INSERT INTO orgs (id, name, created_at) VALUES (?, 'o', 0)").run(org);
      const corpora = corpusService(db, { now: () => 1_000 });
      const doomed = corpora.create(org, "u", { name: "doomed" }).id;
      const kept = corpora.create(org, "u", { name: "kept" }).id;
      const PER = 700; // crosses a turn's budget inside a document
      const seed = (corpus: string, docs: number) => {
        for (let d = 0; d < docs; d++) {
          const doc = crypto.randomUUID();
          db.transaction(() => {
            db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation)
              VALUES (?, ?, ?, 'f.md', 'text/markdown', 'READY', 0, 0, 'b', 1)`).run(doc, org, corpus);
            insertChunkSet(db, { orgId: org, corpusId: corpus, documentId: doc, generation: 1, createdAt: 0 },
              Array.from({ length: PER }, (_, i) => ({ id: orderedId(), seq: i, pages: [1 + (i >> 3)], hash: "h", metadata: { kind: "chunk", n: i % 7 }, body: "t" })));
          }).immediate();
        }
      };
      seed(doomed, 5);
      seed(kept, 2);
      const live = (corpus: string) => count(db as Database, "SELECT count(*) AS n FROM chunks WHERE corpus_id = ? AND deleted_at IS NULL", corpus);

      corpora.remove(org, "u", doomed);
      expect(live(doomed)).toBe(5 * PER);
      // The documents are marked in the background (corpus/drops.ts), each with its chunk drop.
      expect(count(db as Database, "SELECT count(*) AS n FROM chunk_drops")).toBe(0);
      while (dropCorpusTurn(db, CORPUS_MARKS).more);
      expect(live(doomed)).toBe(5 * PER);
      expect(count(db as Database, "SELECT count(*) AS n FROM chunk_drops")).toBe(5);

      const turns: number[] = [];
      for (let more = true; more; ) {
        const r = dropChunksTurn(db);
        turns.push(r.chunks);
        more = r.more;
        expect(turns.length).toBeLessThan(20);
      }
      expect(Math.max(...turns)).toBeLessThanOrEqual(CHUNKS_PER_TURN);
      expect(turns.reduce((a, b) => a + b, 0)).toBe(5 * PER);
      expect(live(doomed)).toBe(0);
      expect(live(kept)).toBe(2 * PER);
      expect(count(db as Database, "SELECT count(*) AS n FROM chunk_drops")).toBe(0);
      // The deleted chunks carry the corpus' deletion time, as before.
      expect(db.query("SELECT DISTINCT deleted_at AS t FROM chunks WHERE corpus_id = ?").all(doomed)).toEqual([{ t: 1_000 }]);
      const dump = () => db.query("SELECT org_key, term, doc_seq, word, bits, n FROM chunk_bits ORDER BY 1, 2, 3, 4").all();
      const kept_ = dump();
      db.transaction(() => db.exec(BITS_REBUILD)).immediate();
      expect(dump()).toEqual(kept_);
    } finally {
      db.close();
    }
  });
});

test("over HTTP: a deleted corpus' chunks are gone from every read at once, and marked deleted even after a SIGKILL right after the delete", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  let k = first;
  try {
    const org = await first.org();
    const doomed = await newCorpus(org, "doomed");
    const kept = await newCorpus(org, "kept");
    const gone = Array.from({ length: 4 }, () => seedDocument(first, org.orgId, doomed, Array.from({ length: 300 }, (_, i) => ({ pages: [1 + i], metadata: { kind: "chunk" } }))));
    const stays = seedDocument(first, org.orgId, kept, [{ pages: [1], metadata: { kind: "chunk" } }]);
    expect((await org.api("GET", "/v1/chunk/q?key=kind&value=chunk")).body.total).toBe(1201);

    expect((await org.api("DELETE", `/v1/corpus/${doomed}`)).status).toBe(200);
    const all = await org.api("GET", "/v1/chunk/q?key=kind&value=chunk&pageSize=100");
    expect(all.body.total).toBe(1);
    expect(all.body.items.map((c: any) => c.id)).toEqual(stays.chunkIds);
    expect((await org.api("GET", "/v1/chunk/?pageSize=100")).body.total).toBe(1);
    expect((await org.api("GET", "/v1/chunk/q?page=1")).body.total).toBe(1);
    expect((await org.api("GET", `/v1/chunk/q?hash=h-${gone[0]!.chunkIds[0]}`)).body.total).toBe(0);
    expect((await org.api("GET", `/v1/chunk/${gone[1]!.chunkIds[5]}`)).status).toBe(403);
    await first.stop("SIGKILL");

    k = await startKbqa({ dataDir, keepData: true });
    const db = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
    try {
      await waitFor(() => count(db, "SELECT count(*) AS n FROM chunks WHERE corpus_id = ? AND deleted_at IS NULL", doomed) === 0, "the deleted corpus' chunks to be marked", 30_000, 100);
      expect(count(db, "SELECT count(*) AS n FROM chunks WHERE corpus_id = ? AND deleted_at IS NULL", kept)).toBe(1);
      await waitFor(() => count(db, "SELECT count(*) AS n FROM chunk_drops") === 0, "the chunk drops to be forgotten", 10_000, 100);
    } finally {
      db.close();
    }
    const jwt = await org.jwt();
    const r = await k.request("GET", "/v1/chunk/q?key=kind&value=chunk", undefined, { authorization: `Bearer ${jwt}` });
    expect(r.body.total).toBe(1);
  } finally {
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);
