// A body not declared as JSON (`curl -d` sends a form type) is read as JSON like any other. With
// a JWT the server had not seen yet, verified asynchronously, reading it failed in Bun 1.3's
// async iterator and every such request was answered "Malformed request body" (400).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test.each(["text/plain", "application/x-www-form-urlencoded", "application/json"])("a first request with a new JWT and a body declared %s is read", async (type) => {
  for (let i = 0; i < 5; i++) {
    const jwt = await org.jwt({ n: `${type}-${i}` }); // a token not seen before
    const r = await fetch(`${k.url}/v1/corpus/`, { method: "POST", headers: { authorization: `Bearer ${jwt}`, "content-type": type }, body: JSON.stringify({ name: `fresh ${i}` }) });
    expect([r.status, ((await r.json()) as { name: string }).name]).toEqual([200, `fresh ${i}`]);
  }
});

test("chunked, with a new JWT: read within the limit too", async () => {
  const body = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('{"name":"chunked"}')), c.close()) });
  const r = await fetch(`${k.url}/v1/corpus/`, { method: "POST", headers: { authorization: `Bearer ${await org.jwt({ n: "chunked" })}`, "content-type": "application/json" }, body });
  expect([r.status, ((await r.json()) as { name: string }).name]).toEqual([200, "chunked"]);
});
