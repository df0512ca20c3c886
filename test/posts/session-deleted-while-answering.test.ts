// A session deleted (itself, or through its corpus) while its question is being answered: the
// exchange used to be stored into the deleted session anyway and answered 200 with two posts
// that then answered 404, and the usage reports counted two posts created in a session that no
// longer existed. Now the answer is 404 and no post is stored; the tokens, spent, still count.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { sql } from "./sql.ts";

let release: () => void = () => {};
let held = Promise.resolve();
const isQuestion = (body: any) => /^Passages:/.test(body.messages?.at(-1)?.content ?? "");
const stub = startOpenAIStub({ reply: () => "An answer nobody can keep.", gate: () => held });
let k: Kbqa;
let org: Org;
let jwt: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--remote-url", stub.url, "--remote-chat-model", "stub-chat"] });
  org = await k.org();
  jwt = await org.jwt();
});
afterAll(async () => {
  release();
  await k?.stop();
  stub.stop();
});

const newCorpus = async () => (await org.api("POST", "/v1/corpus/", { name: "kb" })).body.id as string;
const newSession = async (corpusId: string) => (await org.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id as string;
const postRows = (sessionId: string) => sql<{ n: number }>(k, "SELECT count(*) AS n FROM posts WHERE session_id = ?", sessionId)[0]!.n;
const tokensOf = (sessionId: string) =>
  sql<{ n: number }>(k, "SELECT count(*) AS n FROM usage_events WHERE metric = 'tokens' AND corpus_id IN (SELECT corpus_id FROM session_corpora WHERE session_id = ?)", sessionId)[0]!.n;

/** Asks in `sessionId`, runs `meanwhile` once the model is generating, then lets the model finish. */
async function askWhile(sessionId: string, headers: Record<string, string>, meanwhile: () => Promise<void>) {
  held = new Promise<void>((r) => (release = r));
  const before = stub.calls.length;
  const q = new URLSearchParams({ sessionId, body: "What is kept?" });
  const pending = fetch(`${k.url}/v1/post/q?${q}`, { headers: { authorization: `Bearer ${jwt}`, ...headers } });
  await waitFor(() => stub.calls.slice(before).some((c) => isQuestion(c.body)), "the model asked", 20_000);
  await meanwhile();
  release();
  const r = await pending;
  return { status: r.status, text: await r.text() };
}

test("session deleted while the answer is generated: 404, no post stored, tokens counted", async () => {
  const s = await newSession(await newCorpus());
  const r = await askWhile(s, {}, async () => expect((await org.api("DELETE", `/v1/session/${s}`)).status).toBe(200));
  const body = JSON.parse(r.text);
  expect({ status: r.status, body: { ...body, timestamp: "t" } }).toEqual({
    status: 404,
    body: { timestamp: "t", status: 404, error: "Not Found", message: "Session not found", path: "/v1/post/q" },
  });
  expect(postRows(s)).toBe(0);
  expect(tokensOf(s)).toBe(1);
});

test("corpus deleted while a streamed answer is generated: a 404 error event, never done", async () => {
  const c = await newCorpus();
  const s = await newSession(c);
  const r = await askWhile(s, { accept: "text/event-stream" }, async () => expect((await org.api("DELETE", `/v1/corpus/${c}`)).status).toBe(200));
  expect(r.status).toBe(200); // the stream had started
  const events = [...r.text.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((m) => ({ event: m[1]!, data: JSON.parse(m[2]!) }));
  expect(events.map((e) => e.event).filter((e) => e !== "token")).toEqual(["error"]);
  expect(events.at(-1)!.data).toMatchObject({ status: 404, message: "Session not found" });
  expect(postRows(s)).toBe(0);
});

test("a session still live keeps its exchange", async () => {
  const s = await newSession(await newCorpus());
  const r = await askWhile(s, {}, async () => {});
  expect(r.status).toBe(200);
  expect(postRows(s)).toBe(2);
});
