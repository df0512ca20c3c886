import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, ingest } from "../posts/helpers.ts";

let k: Kbqa;
let a: Org;
let b: Org;
let corpusA: string;
let docA: string;
let tokenA: string;
let tokenB: string;

const DOC = "# Zorbia\n\nThe capital of Zorbia is Quuxtown. Quuxtown lies on the river Blem.\n\n# Weather\n\nIt rains in Zorbia every Tuesday.\n";
const tok = (token: string) => ({ "x-access-token": token });
const W = "/v1/webhook/widget";

beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("widget-a"), k.org("widget-b")]);
  corpusA = await corpus(a, "zorbia");
  docA = await ingest(k, a, corpusA, "zorbia.md", DOC);
  // The spec's read-only question widget set (each widget path needs the scope of the operation it stands for).
  const scope = ["corpus:read", "session:read", "session:create", "post:read", "post:create"];
  const mint = async (o: Org) => (await o.api("POST", "/v1/auth/access-token", { scope, userId: "visitor-1" })).body.token as string;
  [tokenA, tokenB] = await Promise.all([mint(a), mint(b)]);
}, 120_000);
afterAll(async () => {
  await k?.stop();
});

test("round trip with an access token: init → q → list → attachment", async () => {
  const init = await k.request("POST", `${W}/init`, { corpusIds: [corpusA], metadata: { page: "/help" } }, tok(tokenA));
  expect(init.status).toBe(200);
  expect(init.body).toMatchObject({ orgId: a.orgId, userId: "visitor-1", corpusIds: [corpusA], metadata: { page: "/help" } });
  const sessionId = init.body.id;

  const q = await k.request("POST", `${W}/q`, { sessionId, body: "What is the capital of Zorbia?", lang: "en" }, tok(tokenA));
  expect(q.status).toBe(200);
  expect(q.body.query).toMatchObject({ sessionId, owner: "USER", body: "What is the capital of Zorbia?" });
  expect(q.body.answer).toMatchObject({ sessionId, owner: "SYSTEM", lang: "en" });
  expect(q.body.answer.body).toContain("Quuxtown");
  expect(q.body.answer.attachment).toBeGreaterThan(0);

  const list = await k.request("GET", `${W}/?sessionId=${sessionId}&order=ASC`, undefined, tok(tokenA));
  expect(list.status).toBe(200);
  expect(list.body).toMatchObject({ sessionId, order: "ASC", total: 2, pageIndex: 0, pageSize: 25 });
  expect(list.body.items.map((p: any) => p.id)).toEqual([q.body.query.id, q.body.answer.id]);
  // A thin alias: the same page as the post listing.
  expect((await a.api("GET", `/v1/post/?sessionId=${sessionId}&order=ASC`)).body).toEqual(list.body);

  const att = await k.request("GET", `${W}/attachment/${q.body.answer.id}`, undefined, tok(tokenA));
  expect(att.status).toBe(200);
  expect(att.body.map((x: any) => x.docId)).toEqual([docA]);
  expect(att.body).toEqual((await a.api("GET", `/v1/post/attachment/${q.body.answer.id}`)).body);
  // The question cites nothing.
  expect((await k.request("GET", `${W}/attachment/${q.body.query.id}`, undefined, tok(tokenA))).body).toEqual([]);

  // GET /q with query parameters, like GET /v1/post/q.
  const q2 = await k.request("GET", `${W}/q?${new URLSearchParams({ sessionId, body: "When does it rain in Zorbia?" })}`, undefined, tok(tokenA));
  expect(q2.status).toBe(200);
  expect(q2.body.answer.body).toContain("Tuesday");
  expect((await k.request("GET", `${W}/?sessionId=${sessionId}`, undefined, tok(tokenA))).body.total).toBe(4);
});

test("first-generation path: the language from the path, a session opened when none is sent", async () => {
  const first = await k.request("POST", "/webhook/v1/widget/fr", { corpusIds: [corpusA], body: "What is the capital of Zorbia?" }, tok(tokenA));
  expect(first.status).toBe(200);
  expect(first.body.answer).toMatchObject({ owner: "SYSTEM", lang: "fr", sessionId: first.body.sessionId });
  const again = await k.request("POST", "/webhook/v1/widget/fr", { sessionId: first.body.sessionId, body: "Where is Quuxtown?" }, tok(tokenA));
  expect(again.status).toBe(200);
  expect(again.body.sessionId).toBe(first.body.sessionId);
  expect((await a.api("GET", `/v1/session/${first.body.sessionId}`)).body.userId).toBe("visitor-1");
  expect((await k.request("GET", `${W}/?sessionId=${first.body.sessionId}`, undefined, tok(tokenA))).body.total).toBe(4);
  const none = await k.request("POST", "/webhook/v1/widget/fr", { body: "?" }, tok(tokenA));
  expect(none.status).toBe(400);
  expect(none.body.message).toContain("corpusIds");
});

test("an RSA JWT is refused on every widget path, from this organization or another; so is no credential", async () => {
  const s = (await k.request("POST", `${W}/init`, { corpusIds: [corpusA] }, tok(tokenA))).body.id;
  const calls: [string, string, unknown?][] = [
    ["POST", `${W}/init`, { corpusIds: [corpusA] }],
    ["POST", `${W}/q`, { sessionId: s, body: "hi" }],
    ["GET", `${W}/q?sessionId=${s}&body=hi`],
    ["GET", `${W}/?sessionId=${s}`],
    ["GET", `${W}/attachment/${crypto.randomUUID()}`],
    ["POST", "/webhook/v1/widget/en", { sessionId: s, body: "hi" }],
  ];
  const jwtA = await a.jwt();
  const jwtB = await b.jwt();
  for (const [method, path, body] of calls) {
    const variants: Record<string, string>[] = [{ authorization: `Bearer ${jwtA}` }, { authorization: `Bearer ${jwtB}` }, {}];
    for (const headers of variants) {
      const r = await k.request(method, path, body, headers);
      expect([method, path, r.status, r.body.status]).toEqual([method, path, 403, 403]);
    }
  }
  // A bearer token wins over an access token sent with it (rule 1), so the pair is refused too.
  expect((await k.request("GET", `${W}/?sessionId=${s}`, undefined, { authorization: `Bearer ${jwtA}`, ...tok(tokenA) })).status).toBe(403);
  // No posts were written by the refused queries.
  expect((await k.request("GET", `${W}/?sessionId=${s}`, undefined, tok(tokenA))).body.total).toBe(0);
});

test("another organization's session, post and corpus answer 404 through the widget", async () => {
  const s = (await k.request("POST", `${W}/init`, { corpusIds: [corpusA] }, tok(tokenA))).body.id;
  const q = (await k.request("POST", `${W}/q`, { sessionId: s, body: "What is the capital of Zorbia?" }, tok(tokenA))).body;
  const probes: [string, string, unknown?][] = [
    ["POST", `${W}/q`, { sessionId: s, body: "leak?" }],
    ["GET", `${W}/?sessionId=${s}`],
    ["GET", `${W}/attachment/${q.answer.id}`],
    ["POST", `${W}/init`, { corpusIds: [corpusA] }],
    ["POST", "/webhook/v1/widget/en", { sessionId: s, body: "leak?" }],
  ];
  for (const [method, path, body] of probes) {
    const r = await k.request(method, path, body, tok(tokenB));
    expect([path, r.status]).toEqual([path, 404]);
  }
  expect((await k.request("GET", `${W}/?sessionId=${s}`, undefined, tok(tokenA))).body.total).toBe(2);
});

test("validation: 400 naming the field", async () => {
  const r = await k.request("POST", `${W}/init`, {}, tok(tokenA));
  expect(r.status).toBe(400);
  expect(r.body.message).toContain("corpusIds");
  const q = await k.request("POST", `${W}/q`, { body: "x" }, tok(tokenA));
  expect(q.status).toBe(400);
  expect(q.body.message).toContain("sessionId");
});

test("the widget family is absent from the published OpenAPI document", async () => {
  const doc = (await k.request("GET", "/openapi.json")).body;
  expect(Object.keys(doc.paths).length).toBeGreaterThan(10);
  expect(Object.keys(doc.paths).filter((p) => p.includes("webhook"))).toEqual([]);
});
