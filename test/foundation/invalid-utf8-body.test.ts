// A JSON body is UTF-8. Bytes that are not (Latin-1 "é" from a client that did not encode its
// text) were decoded leniently into U+FFFD and stored: `{"name":"caf\xe9"}` made a corpus named
// "caf�" with a 200, the client's text silently lost.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const send = async (body: BodyInit, contentType: string) => {
  const r = await fetch(`${k.url}/v1/corpus/`, { method: "POST", headers: { authorization: `Bearer ${await org.jwt()}`, "content-type": contentType }, body });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};
const chunked = (bytes: Uint8Array) => new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) });

test.each([
  ["declared JSON", "application/json"],
  ["declared as a form", "application/x-www-form-urlencoded"],
])("a body with bytes that are no UTF-8 (%s) answers 400 saying so, and nothing is stored", async (_, type) => {
  for (const body of [latin1('{"name":"caf\u00e9"}'), chunked(latin1('{"name":"caf\u00e9"}')), latin1('{"name":"ok","\u00ff":1}')]) {
    expect(await send(body, type)).toEqual({
      status: 400,
      body: {
        timestamp: expect.any(String), status: 400, error: "Bad Request", path: "/v1/corpus/",
        message: "Invalid request body: it is not valid UTF-8 text; send the JSON encoded as UTF-8",
      },
    });
  }
  expect((await org.api("GET", "/v1/corpus/")).body.total).toBe(0);
});

test("the same text encoded as UTF-8, with or without a byte order mark, is stored as sent", async () => {
  const utf8 = new TextEncoder().encode('{"name":"caf\u00e9 \u540d\u524d"}');
  for (const body of [utf8, new Uint8Array([0xef, 0xbb, 0xbf, ...utf8])]) {
    const r = await send(body, "application/json");
    expect([r.status, r.body.name]).toEqual([200, "caf\u00e9 \u540d\u524d"]);
  }
});
