import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, session } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let sid: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  sid = await session(org, [await corpus(org)]);
});
afterAll(() => k?.stop());

/** Parses a complete SSE body into {event, data} frames. */
function frames(text: string): { event: string; data: any }[] {
  return text.split("\n\n").filter((f) => f.trim()).map((f) => {
    const event = /^event: (.*)$/m.exec(f)?.[1] ?? "message";
    const data = f.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
    return { event, data: JSON.parse(data) };
  });
}

describe("streaming", () => {
  test("Accept: text/event-stream streams token events, then done with the two stored posts", async () => {
    const jwt = await org.jwt();
    const res = await fetch(`${k.url}/v1/post/q?sessionId=${sid}&body=${encodeURIComponent("what does the manual say")}&lang=en`, {
      headers: { authorization: `Bearer ${jwt}`, accept: "text/event-stream" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const fs = frames(await res.text());
    const tokens = fs.filter((f) => f.event === "token");
    expect(tokens.length).toBeGreaterThan(0);
    expect(fs.at(-1)!.event).toBe("done");
    const done = fs.at(-1)!.data;
    expect(tokens.map((t) => t.data.text).join("")).toBe(done.answer.body);
    expect(done.query).toMatchObject({ owner: "USER", body: "what does the manual say", sessionId: sid });
    expect(done.answer).toMatchObject({ owner: "SYSTEM", lang: "en", sessionId: sid });
    // What was streamed is what was stored.
    expect((await org.api("GET", `/v1/post/${done.answer.id}`)).body).toEqual(done.answer);
    expect((await org.api("GET", `/v1/post/${done.query.id}`)).body).toEqual(done.query);
  });

  test("refusals before streaming starts are the usual JSON errors", async () => {
    const jwt = await org.jwt();
    const h = { authorization: `Bearer ${jwt}`, accept: "text/event-stream" };
    const bad = await fetch(`${k.url}/v1/post/q?sessionId=${sid}&body=x&agentId=${crypto.randomUUID()}`, { headers: h });
    expect(bad.status).toBe(404);
    expect(bad.headers.get("content-type")).toStartWith("application/json");
    expect(await bad.json()).toMatchObject({ status: 404, path: "/v1/post/q" });
    const noSession = await fetch(`${k.url}/v1/post/q?sessionId=${crypto.randomUUID()}&body=x`, { headers: h });
    expect(noSession.status).toBe(404);
    const invalid = await fetch(`${k.url}/v1/post/q?body=x`, { headers: h });
    expect(invalid.status).toBe(400);
  });

  test("the deprecated POST streams the same way", async () => {
    const jwt = await org.jwt();
    const res = await fetch(`${k.url}/v1/post/`, {
      method: "POST",
      headers: { authorization: `Bearer ${jwt}`, accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ sessionId: sid, body: "streamed through the old path" }),
    });
    expect(res.status).toBe(200);
    const fs = frames(await res.text());
    expect(fs.at(-1)!.event).toBe("done");
    expect(fs.at(-1)!.data.query.body).toBe("streamed through the old path");
  });
});
