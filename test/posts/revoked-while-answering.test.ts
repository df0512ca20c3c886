import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";
import { corpus, session } from "./helpers.ts";

// Spec, Authentication rule 4: revocation is immediate, and in-flight requests fail right after.
// The stub model holds its answer until the test has revoked the caller's access token.
let release: () => void = () => {};
let held = Promise.resolve();
const stub = startOpenAIStub({ reply: () => "An answer that must not reach a revoked caller.", gate: () => held });
let k: Kbqa;
let org: Org;
let sessionId: string;
let jwt: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--remote-url", stub.url, "--remote-chat-model", "stub-chat"] });
  org = await k.org();
  sessionId = await session(org, [await corpus(org)]);
  jwt = await org.jwt();
});
afterAll(async () => {
  release();
  await k?.stop();
  stub.stop();
});

async function tokenFor(scope: string[]): Promise<string> {
  const r = await k.request("POST", "/v1/auth/access-token", { scope }, { authorization: `Bearer ${jwt}` });
  expect(r.status).toBe(200);
  return r.body.token;
}

/** Sends the question, waits until the model is generating, revokes the token, lets the model finish. */
async function askThenRevoke(headers: Record<string, string>, token: string): Promise<Response> {
  held = new Promise<void>((r) => (release = r));
  const before = stub.calls.length;
  const q = new URLSearchParams({ sessionId, body: "what is decided?" });
  const pending = fetch(`${k.url}/v1/post/q?${q}`, { headers: { "x-access-token": token, ...headers } });
  const deadline = Date.now() + 20_000;
  while (!stub.calls.slice(before).some((c) => c.path === "/v1/chat/completions")) {
    if (Date.now() > deadline) throw new Error("the model was never asked");
    await Bun.sleep(5);
  }
  const revoked = await k.request("DELETE", `/v1/auth/access-token/${token}`, undefined, { authorization: `Bearer ${jwt}` });
  expect(revoked.status).toBe(200);
  release();
  return pending;
}

test("a JSON answer generated while the token was revoked is refused with 403", async () => {
  const r = await askThenRevoke({}, await tokenFor(["post:read", "post:create"]));
  const body = await r.text();
  expect([r.status, body.includes("must not reach")]).toEqual([403, false]);
});

test("a streamed answer ends with a 403 error event, never with done", async () => {
  const r = await askThenRevoke({ accept: "text/event-stream" }, await tokenFor(["post:read", "post:create"]));
  expect(r.status).toBe(200); // the stream had started before the revocation
  const events = [...(await r.text()).matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((m) => ({ event: m[1], data: JSON.parse(m[2]!) }));
  expect(events.some((e) => e.event === "done")).toBe(false);
  const last = events.at(-1)!;
  expect([last.event, last.data.status]).toEqual(["error", 403]);
});

test("a token still valid gets its answer", async () => {
  held = Promise.resolve();
  const token = await tokenFor(["post:read", "post:create"]);
  const q = new URLSearchParams({ sessionId, body: "what is decided?" });
  const r = await fetch(`${k.url}/v1/post/q?${q}`, { headers: { "x-access-token": token } });
  expect(r.status).toBe(200);
  expect(((await r.json()) as { answer: { body: string } }).answer.body).toContain("must not reach");
});
