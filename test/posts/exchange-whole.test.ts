// An exchange is stored whole or not at all. The question used to be stored before retrieval and
// generation, so a model that failed (here a remote endpoint answering 500), a client gone or a
// server stopped in between left it in the session unanswered, and the retry showed it twice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

const KEY = "sk-exchange-test";
let failing = true;
const isQuestion = (body: any) => /^Passages:/.test(body.messages?.at(-1)?.content ?? "");
// Summaries are answered; questions (their prompt starts with the passages) fail while `failing`.
const stub = startOpenAIStub({
  apiKey: KEY,
  reply: (body) => (isQuestion(body) ? "Seventeen gulls [1]." : "## Summary\n\n- Gulls."),
  failWith: (body) => (failing && isQuestion(body) ? 500 : undefined),
});
let k: Kbqa;
let org: Org;
let sessionId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--remote-url", stub.url, "--remote-chat-model", "stub-chat"], env: { KBQA_REMOTE_KEY: KEY } });
  org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "birds" })).body.id;
  await ingestDocument(k, org, corpusId, "gulls.md", "# Gulls\n\nThe harbour counted seventeen gulls on Monday.\n");
  sessionId = (await org.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id;
});
afterAll(async () => {
  await k?.stop();
  stub.stop();
});

const ask = () => org.api("GET", `/v1/post/q?sessionId=${sessionId}&body=${encodeURIComponent("How many gulls were counted?")}`);
const posts = async () => (await org.api("GET", `/v1/post/?sessionId=${sessionId}&order=ASC`)).body;

test("a failed answer leaves no question behind; the retry stores one exchange", async () => {
  const failed = await ask();
  expect(failed.status).toBe(502);
  expect(stub.calls.some((c) => c.path === "/v1/chat/completions")).toBe(true);
  expect(await posts()).toMatchObject({ total: 0, items: [] });

  failing = false;
  const ok = await ask();
  expect(ok.status).toBe(200);
  const listed = await posts();
  expect({ total: listed.total, owners: listed.items.map((p: { owner: string }) => p.owner), bodies: listed.items.map((p: { body: string }) => p.body) }).toEqual({
    total: 2,
    owners: ["USER", "SYSTEM"],
    bodies: ["How many gulls were counted?", "Seventeen gulls [1]."],
  });
  // The question keeps the time it was asked, before its answer.
  expect(listed.items[0].createdAt <= listed.items[1].createdAt).toBe(true);
  expect([ok.body.query.id, ok.body.answer.id]).toEqual(listed.items.map((p: { id: string }) => p.id));
});
