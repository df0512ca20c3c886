import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, session } from "./helpers.ts";

// Streaming is additive: the spec's answer is JSON. An Accept header that refuses event streams
// (q=0) or ranks JSON above them must get the JSON exchange, as RFC 9110's quality values say.
let k: Kbqa;
let org: Org;
let sid: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  sid = await session(org, [await corpus(org)]);
});
afterAll(() => k?.stop());

const askWith = async (accept: string) =>
  fetch(`${k.url}/v1/post/q?sessionId=${sid}&body=${encodeURIComponent("what does the manual say")}`, {
    headers: { authorization: `Bearer ${await org.jwt()}`, accept },
  });

test.each([
  "application/json, text/event-stream;q=0",
  "text/event-stream;q=0",
  "text/event-stream; q=0.0, */*",
  "application/json;q=1, text/event-stream;q=0.5",
  "text/event-stream;q=0.2, */*;q=0.9",
])("Accept %p answers the JSON exchange", async (accept) => {
  const r = await askWith(accept);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toStartWith("application/json");
  const body = await r.json();
  expect(body.query).toMatchObject({ owner: "USER", sessionId: sid });
  expect(body.answer).toMatchObject({ owner: "SYSTEM", sessionId: sid });
});

test.each(["text/event-stream", "text/event-stream; charset=utf-8", "application/json, text/event-stream", "application/json;q=0.5, Text/Event-Stream", "*/*;q=0.1, text/event-stream;q=0.8"])(
  "Accept %p still streams",
  async (accept) => {
    const r = await askWith(accept);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toStartWith("text/event-stream");
    expect(await r.text()).toContain("event: done");
  },
);
