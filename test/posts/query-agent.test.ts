import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, session } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let sid: string;
let cid: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  cid = await corpus(org);
  sid = await session(org, [cid]);
});
afterAll(() => k?.stop());

const total = async (s = sid) => (await org.api("GET", `/v1/post/?sessionId=${s}`)).body.total as number;
const usage = (metric: string) => {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    return db.query("SELECT op, amount, corpus_id AS corpusId, source FROM usage_events WHERE org_id = ? AND metric = ? ORDER BY id").all(org.orgId, metric);
  } finally {
    db.close();
  }
};

describe("agent resolution", () => {
  test("without agentId the query runs on the platform default agent, named on both posts", async () => {
    const agents = (await org.api("GET", "/v1/agent/")).body;
    const def = (Array.isArray(agents) ? agents : agents.items).find((a: any) => a.default);
    const r = await ask(org, sid, "what is the answer here");
    expect(r.status).toBe(200);
    expect(r.body.query.agentId).toBe(def.id);
    expect(r.body.answer.agentId).toBe(def.id);
  });

  test("a named agent is recorded on both posts", async () => {
    const a = await org.api("POST", "/v1/agent/", { name: "Support bot" });
    expect(a.status).toBe(200);
    const r = await ask(org, sid, "what is the answer here", { agentId: a.body.id });
    expect(r.status).toBe(200);
    expect([r.body.query.agentId, r.body.answer.agentId]).toEqual([a.body.id, a.body.id]);
  });

  test("an agent the organization cannot see → 404 and no post written", async () => {
    const before = await total();
    const otherOrg = await k.org();
    const foreign = await otherOrg.api("POST", "/v1/agent/", { name: "Foreign" });
    const deleted = await org.api("POST", "/v1/agent/", { name: "Short lived" });
    await org.api("DELETE", `/v1/agent/${deleted.body.id}`);
    for (const agentId of [crypto.randomUUID(), foreign.body.id, deleted.body.id]) {
      const r = await ask(org, sid, "is anything stored", { agentId });
      expect(r.status).toBe(404);
      expect(r.body.message).toContain("gent");
    }
    // Agent before session: a bad agent on an unknown session still answers about the agent.
    const both = await ask(org, crypto.randomUUID(), "x y z", { agentId: crypto.randomUUID() });
    expect(both.status).toBe(404);
    expect(both.body.message).toContain("gent");
    expect(await total()).toBe(before);
  });

  test("posts and tokens are counted for usage against the session's corpus", async () => {
    const s = await session(org, [cid]);
    const postsBefore = usage("posts").length;
    const r = await ask(org, s, "count this exchange please");
    expect(r.status).toBe(200);
    const posts = usage("posts").slice(postsBefore);
    expect(posts).toEqual([
      { op: "created", amount: 1, corpusId: cid, source: "post" },
      { op: "created", amount: 1, corpusId: cid, source: "post" },
    ]);
    const tokens = usage("tokens");
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.at(-1)).toMatchObject({ op: "used", corpusId: cid, source: "post" });
    expect((tokens.at(-1) as any).amount).toBeGreaterThan(0);
    await org.api("DELETE", `/v1/post/${r.body.query.id}`);
    expect(usage("posts").at(-1)).toEqual({ op: "removed", amount: 1, corpusId: cid, source: "post" });
  });
});

describe("deprecated POST /v1/post/", () => {
  test("same contract as GET /v1/post/q, hidden from OpenAPI", async () => {
    const r = await org.api("POST", "/v1/post/", { sessionId: sid, body: "quelle est la question", extra: "ignored" });
    expect(r.status).toBe(200);
    expect(r.body.query).toMatchObject({ owner: "USER", body: "quelle est la question", lang: "fr", sessionId: sid });
    expect(r.body.answer).toMatchObject({ owner: "SYSTEM", lang: "fr", sessionId: sid });
    expect((await org.api("POST", "/v1/post/", { sessionId: sid, body: "x", agentId: crypto.randomUUID() })).status).toBe(404);
    expect((await org.api("POST", "/v1/post/", { body: "no session" })).status).toBe(400);
    const doc = (await k.request("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths["/v1/post/"] ?? {})).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/post/q"])).toEqual(["get"]);
  });

  test("a query is allowed with post:read or post:create alone, not with another scope", async () => {
    for (const [scope, status] of [["post:read", 200], ["post:create", 200], ["session:read", 403]] as const) {
      const jwt = await org.jwt({ scope: [scope] });
      const r = await k.request("GET", `/v1/post/q?sessionId=${sid}&body=scoped+question`, undefined, { authorization: `Bearer ${jwt}` });
      expect(r.status).toBe(status);
    }
  });
});
