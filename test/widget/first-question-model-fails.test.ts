// The first-generation widget path opens a session when none is sent. It was written before the
// model ran, so a model failing on that first question left an empty session, one more per
// retry, each counted in usage. The session id reaches the client only in a successful answer,
// so nothing can refer to a session whose first exchange failed: it must not exist.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

const KEY = "sk-widget-first-question";
let failing = true;
const isQuestion = (body: any) => /^Passages:/.test(body.messages?.at(-1)?.content ?? "");
// Summaries are answered; questions fail while `failing`.
const stub = startOpenAIStub({
  apiKey: KEY,
  reply: (body) => (isQuestion(body) ? "Seventeen gulls [1]." : "## Summary\n\n- Gulls."),
  failWith: (body) => (failing && isQuestion(body) ? 500 : undefined),
});
let k: Kbqa;
let org: Org;
let corpusId: string;
let token: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--remote-url", stub.url, "--remote-chat-model", "stub-chat"], env: { KBQA_REMOTE_KEY: KEY } });
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "birds" })).body.id;
  await ingestDocument(k, org, corpusId, "gulls.md", "# Gulls\n\nThe harbour counted seventeen gulls on Monday.\n");
  const scope = ["corpus:read", "session:read", "session:create", "post:read", "post:create"];
  token = (await org.api("POST", "/v1/auth/access-token", { scope, userId: "visitor-1" })).body.token;
}, 120_000);
afterAll(async () => {
  await k?.stop();
  stub.stop();
});

const ask = () => k.request("POST", "/webhook/v1/widget/en", { corpusIds: [corpusId], body: "How many gulls were counted?" }, { "x-access-token": token });
const sessions = async () => (await org.api("GET", "/v1/session/")).body;
const sessionUsage = async () => (await org.api("GET", "/v1/usage/all?timeframe=Day")).body.sessions;

test("a model failing on the first question leaves no session; the retry opens exactly one", async () => {
  const usageBefore = await sessionUsage();
  for (let i = 0; i < 2; i++) expect((await ask()).status).toBe(502);
  expect(await sessions()).toMatchObject({ total: 0, items: [] });
  expect(await sessionUsage()).toEqual(usageBefore);

  failing = false;
  const ok = await ask();
  expect(ok.status).toBe(200);
  expect(ok.body.answer).toMatchObject({ owner: "SYSTEM", sessionId: ok.body.sessionId });
  const listed = await sessions();
  expect(listed.items.map((s: { id: string; userId: string; corpusIds: string[] }) => [s.id, s.userId, s.corpusIds])).toEqual([[ok.body.sessionId, "visitor-1", [corpusId]]]);
  // Dated when its question was asked, so the session does not postdate its first post.
  expect(listed.items[0].createdAt <= ok.body.query.createdAt).toBe(true);
  const posts = (await org.api("GET", `/v1/post/?sessionId=${ok.body.sessionId}&order=ASC`)).body;
  expect(posts.items.map((p: { owner: string }) => p.owner)).toEqual(["USER", "SYSTEM"]);
});
