import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let a: Org;
let b: Org;
let c1: string;
let c2: string;
let c3: string;
const ids: Record<string, string> = {};

/** Sessions s1..s5, created in this order (so s5 is newest). */
beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  const corpus = async (o: Org) => (await o.api("POST", "/v1/corpus/", { name: "c" })).body.id as string;
  [c1, c2, c3] = [await corpus(a), await corpus(a), await corpus(a)];
  const as = async (user: string, body: unknown) => {
    const jwt = await a.jwt({}, { sub: user });
    return (await k.request("POST", "/v1/session/", body, { authorization: `Bearer ${jwt}` })).body.id as string;
  };
  ids.s1 = await as("alice", { corpusIds: [c1], metadata: { channel: "web", n: 3, profile: { tier: "gold", langs: ["fr", "en"] } } });
  ids.s2 = await as("bob", { corpusIds: [c2, c1], metadata: { channel: "web", profile: { tier: "silver", langs: ["en"] } } });
  ids.s3 = await as("alice", { corpusIds: [c2], metadata: { channel: "app", tags: [{ k: "x", v: 1 }, { k: "y" }] } });
  ids.s4 = await as("bob", { corpusIds: [c3], metadata: {} });
  ids.s5 = await as("alice", { corpusIds: [c3, c2], metadata: { channel: "web", n: "3" } });
  await b.api("POST", "/v1/session/", { corpusIds: [await corpus(b)], metadata: { channel: "web" } });
});
afterAll(() => k.stop());

const names = (items: { id: string }[]) => items.map((i) => Object.keys(ids).find((n) => ids[n] === i.id) ?? "?");
const q = (params: Record<string, string>) => a.api("GET", `/v1/session/q?${new URLSearchParams(params)}`);

describe("GET /v1/session/q", () => {
  test("no filter returns the same page as the plain listing, newest first", async () => {
    const plain = await a.api("GET", "/v1/session/");
    const r = await q({});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...plain.body, filters: {} });
    expect(r.body).toMatchObject({ orgId: a.orgId, pageIndex: 0, pageSize: 25, total: 5 });
    expect(names(r.body.items)).toEqual(["s5", "s4", "s3", "s2", "s1"]);
  });

  test.each([
    [{ userId: "alice" }, ["s5", "s3", "s1"], { userId: "alice" }],
    [{ userId: "" }, ["s5", "s4", "s3", "s2", "s1"], {}],
    [{ userId: "nobody" }, [], { userId: "nobody" }],
    [{ corpusId: "C1" }, ["s2", "s1"], { corpusId: "C1" }],
    [{ corpusId: "C2" }, ["s5", "s3", "s2"], { corpusId: "C2" }],
    [{ corpusId: "C2", userId: "alice" }, ["s5", "s3"], { corpusId: "C2", userId: "alice" }],
    [{ corpusId: "" }, ["s5", "s4", "s3", "s2", "s1"], {}],
    [{ key: "channel", value: "web" }, ["s5", "s2", "s1"], { key: "channel", value: "web" }],
    [{ key: "n", value: "3" }, ["s5", "s1"], { key: "n", value: "3" }],
    [{ key: "channel", value: "web", userId: "bob" }, ["s2"], { key: "channel", value: "web", userId: "bob" }],
    [{ json: '{"profile":{"langs":["en"]}}' }, ["s2", "s1"], { json: { profile: { langs: ["en"] } } }],
    [{ json: '{"profile":{"tier":"gold","langs":["en","fr"]}}' }, ["s1"], { json: { profile: { tier: "gold", langs: ["en", "fr"] } } }],
    [{ json: '{"profile":{"langs":["de"]}}' }, [], { json: { profile: { langs: ["de"] } } }],
    [{ json: '{"tags":[{"k":"y"}]}' }, ["s3"], { json: { tags: [{ k: "y" }] } }],
    [{ json: '{"n":3}' }, ["s1"], { json: { n: 3 } }],
    [{ json: "{}" }, ["s5", "s4", "s3", "s2", "s1"], { json: {} }],
    // json wins over key/value, and then key/value alone is not an error
    [{ json: '{"channel":"app"}', key: "channel", value: "web" }, ["s3"], { json: { channel: "app" } }],
    [{ json: '{"channel":"app"}', key: "channel" }, ["s3"], { json: { channel: "app" } }],
  ])("%j", async (params, want, filters) => {
    const real = Object.fromEntries(Object.entries(params).map(([p, v]) => [p, v.replace(/^C(\d)$/, (_, n) => [c1, c2, c3][n - 1]!)]));
    const r = await q(real as Record<string, string>);
    expect(r.status).toBe(200);
    expect(names(r.body.items)).toEqual(want);
    expect(r.body.total).toBe(want.length);
    const applied = JSON.parse(JSON.stringify(filters).replace(/"C(\d)"/g, (_, n) => JSON.stringify([c1, c2, c3][n - 1])));
    expect(r.body.filters).toEqual(applied);
  });

  test("key or value alone answers 400", async () => {
    for (const params of [{ key: "channel" }, { value: "web" }, { value: "" }] as Record<string, string>[]) {
      const r = await q(params);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/'(key|value)'/);
    }
  });

  test("invalid json answers 400 naming json", async () => {
    for (const json of ["{not json", "[1,2]", '"web"', "3", "null"]) {
      const r = await q({ json });
      expect({ json, status: r.status }).toEqual({ json, status: 400 });
      expect(r.body.message).toContain("json");
    }
  });

  test("a corpusId outside the organization answers 403, a malformed one 400", async () => {
    const theirs = (await b.api("POST", "/v1/corpus/", { name: "x" })).body.id;
    expect((await q({ corpusId: theirs })).status).toBe(403);
    expect((await q({ corpusId: crypto.randomUUID() })).status).toBe(403);
    const bad = await q({ corpusId: "nope" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("corpusId");
  });

  test("paging walks every match once, newest first, with total", async () => {
    const seen: string[] = [];
    for (let p = 0; p < 3; p++) {
      const r = await q({ key: "channel", value: "web", pageSize: "2", pageIndex: String(p) });
      expect(r.body).toMatchObject({ pageIndex: p, pageSize: 2, total: 3 });
      seen.push(...names(r.body.items));
    }
    expect(seen).toEqual(["s5", "s2", "s1"]);
    for (const [p, v] of [["pageSize", "0"], ["pageSize", "101"], ["pageIndex", "-1"]]) {
      const r = await q({ [p!]: v! });
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(p);
    }
  });

  test("equal creation times are closed by id, descending", async () => {
    const o = await k.org("ties");
    const c = (await o.api("POST", "/v1/corpus/", { name: "c" })).body.id;
    const db = new Database(join(k.dataDir, "kbqa.sqlite"));
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      // The API cannot create two sessions in the same millisecond on demand: rows with equal
      // createdAt are written directly.
      const tied = Array.from({ length: 5 }, () => crypto.randomUUID());
      for (const id of tied) {
        db.query("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at) VALUES (?, ?, 'u', '{\"t\":1}', 5000, 5000)").run(id, o.orgId);
        db.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, 0)").run(id, o.orgId, c);
      }
      const want = [...tied].sort().reverse();
      for (const path of ["/v1/session/?pageSize=2", "/v1/session/q?json=%7B%22t%22%3A1%7D&pageSize=2"]) {
        const got: string[] = [];
        for (let p = 0; p < 3; p++) got.push(...(await o.api("GET", `${path}&pageIndex=${p}`)).body.items.map((i: { id: string }) => i.id));
        expect(got).toEqual(want);
      }
    } finally {
      db.close();
    }
  });
});

describe("deprecated byUser and byMetadata", () => {
  test("byUser filters by userId and corpusId", async () => {
    const r = await a.api("GET", `/v1/session/byUser?userId=alice&corpusId=${c2}`);
    expect(r.status).toBe(200);
    expect(names(r.body.items)).toEqual(["s5", "s3"]);
    expect((await a.api("GET", `/v1/session/byUser?userId=bob`)).body.total).toBe(2);
  });

  test("byMetadata needs key and value", async () => {
    const r = await a.api("GET", "/v1/session/byMetadata?key=channel&value=app");
    expect(names(r.body.items)).toEqual(["s3"]);
    for (const p of ["", "?key=channel", "?value=web"]) expect((await a.api("GET", `/v1/session/byMetadata${p}`)).status).toBe(400);
  });

  test("both are served but absent from the published OpenAPI document", async () => {
    const doc = (await k.request("GET", "/openapi.json")).body;
    const paths = Object.keys(doc.paths);
    expect(paths.some((p) => p.startsWith("/v1/session/q"))).toBe(true);
    expect(paths.filter((p) => /byUser|byMetadata/.test(p))).toEqual([]);
  });
});
