import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// SQLite's JSON functions refuse nesting over 1000 levels: such metadata, once stored, made every
// metadata search of the organization answer 500. Writes are capped at 64 levels (root = 1).
let k: Kbqa;
let a: Org;
let c: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  c = (await a.api("POST", "/v1/corpus/", { name: "c" })).body.id;
});
afterAll(() => k?.stop());

/** An object nested `levels` deep, counting itself: {"team":"x","d":[[…[1]…]]}. */
const nested = (levels: number) => ({ team: "x", d: JSON.parse("[".repeat(levels - 1) + "1" + "]".repeat(levels - 1)) });
const open = (metadata: unknown) => a.api("POST", "/v1/session/", { corpusIds: [c], metadata });
const q = (params: Record<string, string>) => a.api("GET", `/v1/session/q?${new URLSearchParams(params)}`);

describe("metadata nesting limit", () => {
  test("create: 64 levels are stored, 65 or 1100 answer 400 naming metadata and the limit", async () => {
    expect((await open(nested(64))).status).toBe(200);
    for (const levels of [65, 1100]) {
      const r = await open(nested(levels));
      expect(r.status).toBe(400);
      expect(r.body.message).toBe("Invalid body field 'metadata': must be nested at most 64 levels deep");
    }
    // Not an object at all keeps its own message.
    expect((await open([1])).body.message).toBe("Invalid body field 'metadata': must be a JSON object");
  });

  test("patch refuses too deep metadata and keeps what was stored", async () => {
    const id = (await open({ team: "y" })).body.id;
    const r = await a.api("PATCH", `/v1/session/${id}`, { metadata: nested(1100) });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("'metadata'");
    expect((await a.api("GET", `/v1/session/${id}`)).body.metadata).toEqual({ team: "y" });
  });

  test("the widget's session init goes through the same check", async () => {
    const token = (await a.api("POST", "/v1/auth/access-token", { scope: ["session:create"] })).body.token;
    const r = await k.request("POST", "/v1/webhook/widget/init", { corpusIds: [c], metadata: nested(1100) }, { "x-access-token": token });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("'metadata'");
  });

  test("searches keep answering, and a too deep json fragment is a 400 naming json", async () => {
    expect((await q({ key: "team", value: "x" })).status).toBe(200);
    expect((await q({ json: '{"team":"x"}' })).status).toBe(200);
    const r = await q({ json: JSON.stringify(nested(1100)) });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("Invalid query parameter 'json': must be nested at most 64 levels deep");
  });
});

test("a row stored before the limit, past 1000 levels, no longer breaks the organization's searches", async () => {
  const o = await k.org();
  const oc = (await o.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const plain = (await o.api("POST", "/v1/session/", { corpusIds: [oc], metadata: { team: "x" } })).body.id;
  const deep = crypto.randomUUID();
  const db = new Database(join(k.dataDir, "kbqa.sqlite"));
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    db.query("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at) VALUES (?, ?, 'u', ?, 1000, 1000)").run(deep, o.orgId, JSON.stringify(nested(1100)));
    db.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, 0)").run(deep, o.orgId, oc);
  } finally {
    db.close();
  }
  const ids = (r: { body: { items: { id: string }[] } }) => r.body.items.map((i) => i.id);
  const byKey = await o.api("GET", "/v1/session/q?key=team&value=x");
  expect(byKey.status).toBe(200);
  expect(ids(byKey)).toEqual([plain, deep]);
  const byJson = await o.api("GET", `/v1/session/q?json=${encodeURIComponent('{"d":[]}')}`);
  expect(byJson.status).toBe(200);
  expect(ids(byJson)).toEqual([deep]);
  // Read back whole: the limit applies to writes only.
  const got = await o.api("GET", `/v1/session/${deep}`);
  expect(got.status).toBe(200);
  expect(got.body.metadata).toEqual(nested(1100));
});
