// Spec, Authentication rule 4: revocation is immediate, and in-flight requests fail right after.
// A question whose access token was revoked while the model answered was refused with 403 (or a
// 403 error event) but its exchange had been stored first: the session then held a question and
// an answer from a request that failed (and the first-generation widget a session opened by it).
// Now nothing is stored, as for a session deleted meanwhile; the tokens, spent, still count.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { sql } from "./sql.ts";

let release: () => void = () => {};
let held = Promise.resolve();
const isQuestion = (body: any) => /^Passages:/.test(body.messages?.at(-1)?.content ?? "");
const stub = startOpenAIStub({ reply: () => "An answer for a revoked caller.", gate: () => held });
let k: Kbqa;
let org: Org;
let jwt: string;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--remote-url", stub.url, "--remote-chat-model", "stub-chat"] });
  org = await k.org();
  jwt = await org.jwt();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "kb" })).body.id;
});
afterAll(async () => {
  release();
  await k?.stop();
  stub.stop();
});

const SCOPE = ["session:create", "session:read", "post:read", "post:create"];
async function token(): Promise<string> {
  const r = await k.request("POST", "/v1/auth/access-token", { scope: SCOPE }, { authorization: `Bearer ${jwt}` });
  expect(r.status).toBe(200);
  return r.body.token;
}
const newSession = async () => (await org.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id as string;
const postRows = (sessionId: string) => sql<{ n: number }>(k, "SELECT count(*) AS n FROM posts WHERE session_id = ?", sessionId)[0]!.n;
const sessionsOf = (corpus: string) => sql<{ n: number }>(k, "SELECT count(*) AS n FROM session_corpora WHERE corpus_id = ?", corpus)[0]!.n;
const tokenEvents = () => sql<{ n: number }>(k, "SELECT count(*) AS n FROM usage_events WHERE metric = 'tokens'")[0]!.n;

/** Sends the request with `tok`, revokes `tok` once the model is generating, lets the model finish. */
async function revokedWhileAnswering(tok: string, path: string, init: RequestInit = {}) {
  held = new Promise<void>((r) => (release = r));
  const before = stub.calls.length;
  const pending = fetch(`${k.url}${path}`, { ...init, headers: { "x-access-token": tok, ...(init.headers as Record<string, string>) } });
  await waitFor(() => stub.calls.slice(before).some((c) => isQuestion(c.body)), "the model asked", 20_000);
  expect((await k.request("DELETE", `/v1/auth/access-token/${tok}`, undefined, { authorization: `Bearer ${jwt}` })).status).toBe(200);
  release();
  const r = await pending;
  return { status: r.status, text: await r.text() };
}
const lastEvent = (text: string) => {
  const m = [...text.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].at(-1)!;
  return { event: m[1], status: JSON.parse(m[2]!).status };
};

test("JSON: 403, no post stored, the tokens counted", async () => {
  const s = await newSession();
  const tokensBefore = tokenEvents();
  const r = await revokedWhileAnswering(await token(), `/v1/post/q?${new URLSearchParams({ sessionId: s, body: "what is kept?" })}`);
  expect(r.status).toBe(403);
  expect(postRows(s)).toBe(0);
  expect(tokenEvents()).toBe(tokensBefore + 1);
});

test("streamed: a 403 error event, no post stored", async () => {
  const s = await newSession();
  const r = await revokedWhileAnswering(await token(), `/v1/post/q?${new URLSearchParams({ sessionId: s, body: "what is kept?" })}`, {
    headers: { accept: "text/event-stream" },
  });
  expect(lastEvent(r.text)).toEqual({ event: "error", status: 403 });
  expect(postRows(s)).toBe(0);
});

test("widget q: 403, no post stored", async () => {
  const s = await newSession();
  const r = await revokedWhileAnswering(await token(), "/v1/webhook/widget/q", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sessionId: s, body: "what is kept?" }),
  });
  expect(r.status).toBe(403);
  expect(postRows(s)).toBe(0);
});

test("first-generation widget: 403 and no session opened", async () => {
  const before = sessionsOf(corpusId);
  const r = await revokedWhileAnswering(await token(), "/webhook/v1/widget/en", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ corpusIds: [corpusId], body: "what is kept?" }),
  });
  expect(r.status).toBe(403);
  expect(sessionsOf(corpusId)).toBe(before);
});

test("a token still valid keeps its exchange", async () => {
  held = Promise.resolve();
  const s = await newSession();
  const r = await fetch(`${k.url}/v1/post/q?${new URLSearchParams({ sessionId: s, body: "what is kept?" })}`, { headers: { "x-access-token": await token() } });
  expect(r.status).toBe(200);
  expect(postRows(s)).toBe(2);
});
