import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ids, newCorpus, seedDocument, walk } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
let a: { documentId: string; chunkIds: string[] };
let b: { documentId: string; chunkIds: string[] };

beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = await newCorpus(org);
  // Inserted out of reading order on purpose: the summary (empty span) and page 1 come last.
  a = seedDocument(k, org.orgId, corpusId, [{ pages: [3] }, { pages: [2, 3] }, { pages: [1] }, { pages: [], metadata: { kind: "summary" } }]);
  b = seedDocument(k, org.orgId, corpusId, [{ pages: [1] }, { pages: [2] }]);
  // Starts a server and runs the CLI per organization: on a loaded 2-core machine that outlasts the default 5 s.
}, 60_000);
afterAll(() => k?.stop());

describe("GET /v1/chunk/", () => {
  test("reading order: document, then empty span first, then first page, then id; no body by default", async () => {
    const r = await org.api("GET", "/v1/chunk/");
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(6);
    expect(r.body.pageIndex).toBe(0);
    expect(r.body.pageSize).toBe(25);
    expect(ids(r.body.items)).toEqual([a.chunkIds[3], a.chunkIds[2], a.chunkIds[1], a.chunkIds[0], b.chunkIds[0], b.chunkIds[1]]);
    expect(r.body.items[0]).toEqual({ id: a.chunkIds[3], documentId: a.documentId, corpusId, pages: [], hash: `h-${a.chunkIds[3]}`, metadata: { kind: "summary" } });
  });

  test("never publishes the vector or a scalar page", async () => {
    const r = await org.api("GET", "/v1/chunk/?body=true");
    for (const c of r.body.items) expect(Object.keys(c).sort()).toEqual(["body", "corpusId", "documentId", "hash", "id", "metadata", "pages"]);
  });

  test("body=true includes the text", async () => {
    const r = await org.api("GET", "/v1/chunk/?body=true&pageSize=2");
    expect(r.body.items.map((c: any) => c.body)).toEqual(["text 3", "text 2"]);
  });

  test("body=true with pageSize above 25 is 400; 25 is fine; without body 100 is fine", async () => {
    const bad = await org.api("GET", "/v1/chunk/?body=true&pageSize=26");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("pageSize");
    expect((await org.api("GET", "/v1/chunk/?body=true&pageSize=25")).status).toBe(200);
    expect((await org.api("GET", "/v1/chunk/?pageSize=100")).status).toBe(200);
  });

  // The message said "must be true or false, or a string": Elysia's string carrier for a
  // boolean query parameter was described as if a string were accepted.
  test("body other than true or false is 400 saying exactly that", async () => {
    for (const [path, v] of [["/v1/chunk/", "yes"], ["/v1/chunk/q", "1"], ["/v1/chunk/", "no"]] as const) {
      const r = await org.api("GET", `${path}?body=${v}`);
      expect({ status: r.status, message: r.body.message }).toEqual({ status: 400, message: `Invalid query parameter 'body': must be true or false (got ${JSON.stringify(v)})` });
    }
  });

  test("paging parameters out of range are 400 naming the parameter", async () => {
    for (const q of ["pageSize=0", "pageSize=101", "pageIndex=-1", "pageSize=x"]) {
      const r = await org.api("GET", `/v1/chunk/?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(q.split("=")[0]!);
    }
    const r = await org.api("GET", "/v1/chunk/?body=maybe");
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("body");
  });

  test("walking pages of 1 gives every chunk once, in order; total is exact on every page", async () => {
    const all = ids((await org.api("GET", "/v1/chunk/")).body.items);
    const seen: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await org.api("GET", `/v1/chunk/?pageSize=1&pageIndex=${i}`);
      expect(r.body.total).toBe(6);
      seen.push(...ids(r.body.items));
    }
    expect(seen).toEqual(all);
  });

  test("documents ingested while a client walks appear after it, never shifting pages already read", async () => {
    const other = await k.org();
    const c2 = await newCorpus(other);
    const first = seedDocument(k, other.orgId, c2, [{ pages: [1] }, { pages: [2] }, { pages: [3] }]);
    const p0 = await other.api("GET", "/v1/chunk/?pageSize=2&pageIndex=0");
    // A new document commits between two page reads; its id sorts before the first one's, and
    // its chunk ids are newer: only the commit order keeps it after what was already read.
    const second = seedDocument(k, other.orgId, c2, [{ pages: [] }, { pages: [1] }], `00000000-0000-4000-8000-${"0".repeat(12)}`);
    const p1 = await other.api("GET", "/v1/chunk/?pageSize=2&pageIndex=1");
    const p2 = await other.api("GET", "/v1/chunk/?pageSize=2&pageIndex=2");
    expect([...ids(p0.body.items), ...ids(p1.body.items), ...ids(p2.body.items)]).toEqual([...first.chunkIds, ...second.chunkIds]);
    expect(p1.body.total).toBe(5);
  });

  test("only the caller's organization; deleted documents' chunks are gone", async () => {
    const other = await k.org();
    expect((await other.api("GET", "/v1/chunk/")).body).toEqual({ pageIndex: 0, pageSize: 25, total: 0, items: [] });
    expect((await walk(org, "/v1/chunk/", 2)).length).toBe(6);
  });

  test("a chunk of a replaced generation or of a deleted document is not listed", async () => {
    const c = await newCorpus(org, "gen");
    const d = seedDocument(k, org.orgId, c, [{ pages: [1] }]);
    const { Database } = await import("bun:sqlite");
    const db = new Database(`${k.dataDir}/kbqa.sqlite`);
    db.query("UPDATE documents SET generation = 2 WHERE id = ?").run(d.documentId);
    expect(ids(await walk(org, `/v1/chunk/q?corpusId=${c}`))).toEqual([]);
    db.query("UPDATE documents SET generation = 1, deleted_at = 1 WHERE id = ?").run(d.documentId);
    expect(ids(await walk(org, `/v1/chunk/q?corpusId=${c}`))).toEqual([]);
    db.close();
    expect((await org.api("GET", "/v1/chunk/")).body.total).toBe(6);
  });
});

describe("OpenAPI", () => {
  test("documents every chunk operation, with no vector or scalar page in the chunk schema", async () => {
    const r = await k.request("GET", "/openapi.json");
    expect(r.status).toBe(200);
    const paths = r.body.paths;
    expect(Object.keys(paths["/v1/chunk/"] ?? {})).toContain("get");
    expect(Object.keys(paths["/v1/chunk/q"] ?? {})).toContain("get");
    expect(Object.keys(paths["/v1/chunk/{chunkId}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
    const text = JSON.stringify(paths["/v1/chunk/{chunkId}"]);
    expect(text).not.toContain('"vector"');
    expect(text).not.toContain('"page"');
  });
});
