// An access token minted for another userId (the README's widget visitor) acts as that user. With
// the widget scope set it could list every session of its organization (session:read), read every
// other user's conversation (post:read), ask in it, and read any user's usage: one visitor's browser
// held everyone's questions. Another user's session, its posts and usage now answer as if absent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus } from "../posts/helpers.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
let alice: { sessionId: string; questionId: string; answerId: string };
let visitor: string;
let visitorSession: any;
const W = "/v1/webhook/widget";
const SCOPE = ["corpus:read", "session:read", "session:create", "session:update", "session:delete", "post:read", "post:create", "post:delete", "usage:read"];
const as = (t: string, method: string, path: string, body?: unknown) => k.request(method, path, body, { "x-access-token": t });
const mint = async (body: Record<string, unknown>) => {
  const r = await a.api("POST", "/v1/auth/access-token", { scope: SCOPE, ...body }, { authorization: `Bearer ${await a.jwt({}, { sub: "alice" })}` });
  expect(r.status).toBe(200);
  return r.body.token as string;
};

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org("confined");
  corpusId = await corpus(a, "kb");
  const jwt = { authorization: `Bearer ${await a.jwt({}, { sub: "alice" })}` };
  const s = await a.api("POST", "/v1/session/", { corpusIds: [corpusId], metadata: { team: "hr" } }, jwt);
  const q = await a.api("GET", `/v1/post/q?sessionId=${s.body.id}&body=${encodeURIComponent("What is my salary?")}`, undefined, jwt);
  expect(q.status).toBe(200);
  alice = { sessionId: s.body.id, questionId: q.body.query.id, answerId: q.body.answer.id };
  visitor = await mint({ userId: "visitor-1" });
  visitorSession = (await as(visitor, "POST", `${W}/init`, { corpusIds: [corpusId], metadata: { team: "hr" } })).body;
}, 60_000);
afterAll(() => k?.stop());

test("a visitor's token lists and finds only the visitor's own sessions", async () => {
  const page = (filters: Record<string, unknown>) => ({ orgId: a.orgId, pageIndex: 0, pageSize: 25, total: 1, items: [visitorSession], filters });
  expect((await as(visitor, "GET", "/v1/session/")).body).toEqual(page({}));
  expect((await as(visitor, "GET", "/v1/session/q?key=team&value=hr")).body).toEqual(page({ key: "team", value: "hr" }));
  expect((await as(visitor, "GET", `/v1/session/q?corpusId=${corpusId}`)).body).toEqual(page({ corpusId }));
  expect((await as(visitor, "GET", "/v1/session/byMetadata?key=team&value=hr")).body).toEqual(page({ key: "team", value: "hr" }));
  expect((await as(visitor, "GET", "/v1/session/q?userId=alice")).body).toEqual({ orgId: a.orgId, pageIndex: 0, pageSize: 25, total: 0, items: [], filters: { userId: "alice" } });
  expect((await as(visitor, "GET", `/v1/session/${visitorSession.id}`)).body).toEqual(visitorSession);
});

test("another user's session, its posts and its usage answer as if they did not exist", async () => {
  const probes: [string, string, unknown?][] = [
    ["GET", `/v1/session/${alice.sessionId}`],
    ["PATCH", `/v1/session/${alice.sessionId}`, { metadata: {} }],
    ["GET", `/v1/post/?sessionId=${alice.sessionId}`],
    ["GET", `/v1/post/${alice.questionId}`],
    ["GET", `/v1/post/attachment/${alice.answerId}`],
    ["GET", `/v1/post/q?sessionId=${alice.sessionId}&body=injected`],
    ["POST", "/v1/post/", { sessionId: alice.sessionId, body: "injected" }],
    ["GET", `${W}/?sessionId=${alice.sessionId}`],
    ["GET", `${W}/attachment/${alice.answerId}`],
    ["POST", `${W}/q`, { sessionId: alice.sessionId, body: "injected" }],
    ["POST", "/webhook/v1/widget/en", { sessionId: alice.sessionId, body: "injected" }],
    ["DELETE", `/v1/post/${alice.questionId}`],
    ["DELETE", `/v1/session/${alice.sessionId}`],
  ];
  const seen = [];
  for (const [method, path, body] of probes) seen.push([method, path, (await as(visitor, method, path, body)).status]);
  expect(seen).toEqual(probes.map(([method, path]) => [method, path, 404]));
  const usage = await as(visitor, "GET", "/v1/usage/user/alice");
  expect([usage.status, usage.body.message]).toEqual([403, 'This access token was issued for user "visitor-1" and reads only that user\'s usage']);
  expect((await as(visitor, "GET", "/v1/usage/user/visitor-1")).status).toBe(200);
  // Alice's conversation is untouched: nothing was read, asked or deleted through the visitor's token.
  const posts = await a.api("GET", `/v1/post/?sessionId=${alice.sessionId}&order=ASC`);
  expect([posts.status, posts.body.items.map((p: any) => p.id)]).toEqual([200, [alice.questionId, alice.answerId]]);
});

test("the visitor keeps its own conversation; a token minted for its creator still sees the organization", async () => {
  const asked = await as(visitor, "POST", `${W}/q`, { sessionId: visitorSession.id, body: "Hello?" });
  expect(asked.status).toBe(200);
  expect((await as(visitor, "GET", `/v1/post/?sessionId=${visitorSession.id}`)).body.total).toBe(2);
  expect((await as(visitor, "GET", `/v1/post/${asked.body.answer.id}`)).status).toBe(200);
  for (const own of [await mint({}), await mint({ userId: "alice" })]) {
    expect((await as(own, "GET", "/v1/session/")).body.total).toBe(2);
    expect((await as(own, "GET", `/v1/post/?sessionId=${alice.sessionId}`)).status).toBe(200);
    expect((await as(own, "GET", "/v1/usage/user/visitor-1")).status).toBe(200);
  }
});
