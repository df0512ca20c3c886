// A client that goes away while its answer is generated is no server failure. The model's abort
// reached the error handler as an unknown error: every such disconnect was logged at error level
// ("unhandled error" with an empty text and a 500 in the request log for a JSON answer, "stream
// failed" for a streamed one), so an operator watching errors saw false alarms.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";
import { corpus, session } from "./helpers.ts";

let release: () => void = () => {};
let held = Promise.resolve();
const isQuestion = (body: any) => /^Passages:/.test(body.messages?.at(-1)?.content ?? "");
const stub = startOpenAIStub({ reply: () => "An answer nobody waits for.", gate: () => held });
let k: Kbqa;
let org: Org;
let sessionId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--remote-url", stub.url, "--remote-chat-model", "stub-chat", "--log-requests"] });
  org = await k.org();
  sessionId = await session(org, [await corpus(org)]);
});
afterAll(async () => {
  release();
  await k?.stop();
  stub.stop();
});

const logLines = () =>
  k.stderr().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { level: string; msg: string; path?: string; status?: number });

/** Asks, waits until the model is generating, then hangs up. */
async function askAndHangUp(accept: string) {
  held = new Promise<void>((r) => (release = r));
  const before = stub.calls.length;
  const hangUp = new AbortController();
  const q = new URLSearchParams({ sessionId, body: "Is anyone there?" });
  const pending = fetch(`${k.url}/v1/post/q?${q}`, { headers: { authorization: `Bearer ${await org.jwt()}`, accept }, signal: hangUp.signal })
    .then((r) => r.text())
    .catch(() => "gone");
  const asked = await waitFor(() => stub.calls.slice(before).find((c) => isQuestion(c.body)), "the model asked", 20_000);
  hangUp.abort();
  expect(await pending).toBe("gone");
  // Released only once the server gave up on the model: released earlier, the answer could be
  // complete before the server noticed the hang-up, and then it is stored as any other.
  await waitFor(() => asked.aborted, "the server to drop the model's request", 20_000);
  release();
}

test("hanging up on a streamed and on a JSON answer logs no error and no 500", async () => {
  await askAndHangUp("text/event-stream");
  await askAndHangUp("application/json");
  // The JSON request's log line comes once its outcome was handled (the streamed one's
  // came when its stream began, and that stream was handled long before).
  await waitFor(() => logLines().filter((l) => l.msg === "request" && l.path === "/v1/post/q").length >= 2, "both requests logged", 20_000);
  const requests = logLines().filter((l) => l.msg === "request" && l.path === "/v1/post/q");
  expect(requests.map((l) => l.status! >= 500)).toEqual([false, false]);
  expect(logLines().filter((l) => l.level === "error")).toEqual([]);
  // And nothing was stored, as before.
  expect((await org.api("GET", `/v1/post/?sessionId=${sessionId}`)).body.total).toBe(0);
});
