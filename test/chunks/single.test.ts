import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ids, newCorpus, seedDocument } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;

beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = await newCorpus(org);
  // Starts a server and runs the CLI per organization: on a loaded 2-core machine that outlasts the default 5 s.
}, 60_000);
afterAll(() => k?.stop());

const sql = <T>(f: (db: Database) => T): T => {
  const db = new Database(`${k.dataDir}/kbqa.sqlite`);
  try {
    return f(db);
  } finally {
    db.close();
  }
};

describe("GET /v1/chunk/{id}", () => {
  test("always with body; a missing stored text is body \"\"", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [2], body: "hello", metadata: { kind: "chunk", x: 1 } }, { pages: [3], body: null }]);
    const r = await org.api("GET", `/v1/chunk/${d.chunkIds[0]}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: d.chunkIds[0], documentId: d.documentId, corpusId, pages: [2], hash: `h-${d.chunkIds[0]}`, metadata: { kind: "chunk", x: 1 }, body: "hello" });
    expect((await org.api("GET", `/v1/chunk/${d.chunkIds[1]}`)).body.body).toBe("");
  });

  test("another organization's chunk, an unknown id: 404; a malformed id: 400", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1] }]);
    const other = await k.org();
    expect((await other.api("GET", `/v1/chunk/${d.chunkIds[0]}`)).status).toBe(404);
    expect((await other.api("PATCH", `/v1/chunk/${d.chunkIds[0]}`, { body: "x" })).status).toBe(404);
    expect((await other.api("DELETE", `/v1/chunk/${d.chunkIds[0]}`)).status).toBe(404);
    expect((await org.api("GET", `/v1/chunk/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await org.api("GET", "/v1/chunk/nope")).status).toBe(400);
  });

  test("a chunk of a deleted document is 403", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1] }]);
    // Only the document row: the rule is about the document, whatever the cascade did.
    sql((db) => db.query("UPDATE documents SET deleted_at = ? WHERE id = ?").run(Date.now(), d.documentId));
    const r = await org.api("GET", `/v1/chunk/${d.chunkIds[0]}`);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ status: 403, path: `/v1/chunk/${d.chunkIds[0]}` });
  });

  test("a chunk of a replaced generation is 404", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1] }]);
    sql((db) => db.query("UPDATE documents SET generation = 2 WHERE id = ?").run(d.documentId));
    expect((await org.api("GET", `/v1/chunk/${d.chunkIds[0]}`)).status).toBe(404);
  });
});

describe("PATCH /v1/chunk/{id}", () => {
  test("pages are sorted and de-duplicated; [] clears and moves the chunk first in its document", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1] }, { pages: [2] }, { pages: [3] }]);
    const r = await org.api("PATCH", `/v1/chunk/${d.chunkIds[2]}`, { pages: [9, 4, 9, 5] });
    expect(r.status).toBe(200);
    expect(r.body.pages).toEqual([4, 5, 9]);
    const byPage = await org.api("GET", `/v1/chunk/q?documentId=${d.documentId}&page=5`);
    expect(ids(byPage.body.items)).toEqual([d.chunkIds[2]]);
    expect((await org.api("PATCH", `/v1/chunk/${d.chunkIds[2]}`, { pages: [] })).body.pages).toEqual([]);
    const list = await org.api("GET", `/v1/chunk/q?documentId=${d.documentId}`);
    expect(ids(list.body.items)).toEqual([d.chunkIds[2], d.chunkIds[0], d.chunkIds[1]]);
  });

  test("a page below 1 or not an integer is 400 and changes nothing", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1] }]);
    for (const pages of [[0], [2, -1], [1.5], ["x"], 3]) {
      const r = await org.api("PATCH", `/v1/chunk/${d.chunkIds[0]}`, { pages });
      expect(r.status).toBe(400);
      expect(r.body.message).toContain("pages");
    }
    expect((await org.api("GET", `/v1/chunk/${d.chunkIds[0]}`)).body.pages).toEqual([1]);
  });

  test("metadata replaces the whole object, {} clears, and search follows at once", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1], metadata: { kind: "chunk", old: true } }]);
    const id = d.chunkIds[0]!;
    const r = await org.api("PATCH", `/v1/chunk/${id}`, { metadata: { team: { name: "blue", members: ["x", "y"] } } });
    expect(r.body.metadata).toEqual({ team: { name: "blue", members: ["x", "y"] } });
    const json = encodeURIComponent(JSON.stringify({ team: { members: ["y"] } }));
    expect(ids((await org.api("GET", `/v1/chunk/q?json=${json}`)).body.items)).toEqual([id]);
    expect((await org.api("GET", `/v1/chunk/q?documentId=${d.documentId}&key=old&value=true`)).body.total).toBe(0);
    expect((await org.api("PATCH", `/v1/chunk/${id}`, { metadata: {} })).body.metadata).toEqual({});
    expect((await org.api("GET", `/v1/chunk/q?json=${json}`)).body.total).toBe(0);
    for (const metadata of [[1], "x", null]) expect((await org.api("PATCH", `/v1/chunk/${id}`, { metadata })).status).toBe(400);
  });

  test("body changes the text but not the hash; omitted fields keep their value; id, documentId, corpusId, hash are ignored", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [2], body: "old text", hash: "h-old", metadata: { kind: "chunk" } }]);
    const id = d.chunkIds[0]!;
    const r = await org.api("PATCH", `/v1/chunk/${id}`, {
      body: "new text", id: crypto.randomUUID(), documentId: crypto.randomUUID(), corpusId: crypto.randomUUID(), hash: "forged",
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id, documentId: d.documentId, corpusId, pages: [2], hash: "h-old", metadata: { kind: "chunk" }, body: "new text" });
    expect((await org.api("GET", `/v1/chunk/${id}`)).body).toEqual(r.body);
    expect((await org.api("GET", "/v1/chunk/q?hash=h-old")).body.total).toBe(1);
    expect((await org.api("PATCH", `/v1/chunk/${id}`, { body: 3 })).status).toBe(400);
  });
});

describe("DELETE /v1/chunk/{id}", () => {
  test("acknowledges, then the chunk is gone from get, list and search; the document and its other chunks stay", async () => {
    const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1], hash: "del-me", metadata: { kind: "chunk", del: 1 } }, { pages: [2] }]);
    const id = d.chunkIds[0]!;
    const r = await org.api("DELETE", `/v1/chunk/${id}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["message", "timestamp"]);
    expect(r.body.message).toContain(id);
    expect((await org.api("GET", `/v1/chunk/${id}`)).status).toBe(404);
    expect((await org.api("PATCH", `/v1/chunk/${id}`, { body: "x" })).status).toBe(404);
    expect((await org.api("DELETE", `/v1/chunk/${id}`)).status).toBe(404);
    expect(ids((await org.api("GET", `/v1/chunk/q?documentId=${d.documentId}`)).body.items)).toEqual([d.chunkIds[1]]);
    expect((await org.api("GET", "/v1/chunk/q?hash=del-me")).body.total).toBe(0);
    expect((await org.api("GET", '/v1/chunk/q?json={"del":1}')).body.total).toBe(0);
    expect(ids((await org.api("GET", "/v1/chunk/?pageSize=100")).body.items)).not.toContain(id);
    // Soft: the row and its text are kept.
    expect(sql((db) => db.query<{ body: string; d: number }, [string]>("SELECT body, deleted_at AS d FROM chunks WHERE id = ?").get(id))).toMatchObject({ body: "text 0" });
  });
});
