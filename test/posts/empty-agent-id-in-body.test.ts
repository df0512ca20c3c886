/**
 * The spec gives `POST /v1/post/` (deprecated) "the same contract as" `GET /v1/post/q`, and the
 * widget's `q` and first-generation paths stand for the same query. `GET /v1/post/q?agentId=`
 * runs on the platform default agent (an optional parameter sent empty counts as absent), so an
 * empty `agentId` in a JSON body must do the same, as an empty `lang` in that body already does.
 * A malformed one is still a 400 naming the field.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, session } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let cid: string;
let sid: string;
let defaultAgent: string;
let token: string;

beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  cid = await corpus(org);
  sid = await session(org, [cid]);
  const agents = (await org.api("GET", "/v1/agent/")).body as { id: string; default: boolean }[];
  defaultAgent = agents.find((a) => a.default)!.id;
  const scope = ["session:read", "session:create", "post:read", "post:create"];
  token = (await org.api("POST", "/v1/auth/access-token", { scope, userId: "visitor-1" })).body.token;
}, 60_000);
afterAll(() => k?.stop());

const postsIn = async (sessionId: string, headers?: Record<string, string>) =>
  (await k.request("GET", `/v1/post/?sessionId=${sessionId}`, undefined, headers ?? { authorization: `Bearer ${await org.jwt()}` })).body.total;

test("GET /v1/post/q?agentId= runs on the default agent (the reference behaviour)", async () => {
  const r = await org.api("GET", `/v1/post/q?${new URLSearchParams({ sessionId: sid, body: "anything here?", agentId: "" })}`);
  expect(r.status).toBe(200);
  expect([r.body.query.agentId, r.body.answer.agentId]).toEqual([defaultAgent, defaultAgent]);
});

test("POST /v1/post/ with agentId \"\" runs on the default agent, like the query", async () => {
  const r = await org.api("POST", "/v1/post/", { sessionId: sid, body: "anything here?", agentId: "" });
  expect(r.status).toBe(200);
  expect([r.body.query.agentId, r.body.answer.agentId]).toEqual([defaultAgent, defaultAgent]);
});

test("the widget's POST q and first-generation path take an empty agentId as absent too", async () => {
  const h = { "x-access-token": token };
  const init = await k.request("POST", "/v1/webhook/widget/init", { corpusIds: [cid] }, h);
  expect(init.status).toBe(200);
  const q = await k.request("POST", "/v1/webhook/widget/q", { sessionId: init.body.id, body: "anything here?", agentId: "" }, h);
  expect(q.status).toBe(200);
  expect(q.body.answer.agentId).toBe(defaultAgent);
  const first = await k.request("POST", "/webhook/v1/widget/en", { corpusIds: [cid], body: "anything here?", agentId: "" }, h);
  expect(first.status).toBe(200);
  expect(first.body.answer.agentId).toBe(defaultAgent);
});

test("a malformed agentId in the body is still a 400 naming it, and nothing is written", async () => {
  const before = await postsIn(sid);
  for (const agentId of ["nope", " ", 5, null]) {
    const r = await org.api("POST", "/v1/post/", { sessionId: sid, body: "anything here?", agentId });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("'agentId'");
  }
  expect(await postsIn(sid)).toBe(before);
});
