// JSON may escape half of a UTF-16 pair ("\ud800"), and a JavaScript client that cuts a string
// in the middle of an emoji sends one. SQLite's UTF-8 binding then stored garbage: a corpus
// named "ab\ud800" was stored as "" past the name rule, a patched chunk body lost all its text.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

const send = async (method: string, path: string, raw: string, contentType = "application/json") => {
  const r = await fetch(`${k.url}${path}`, { method, headers: { authorization: `Bearer ${await org.jwt()}`, "content-type": contentType }, body: raw });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};

const refusal = (path: string, field: string) => ({
  status: 400,
  body: {
    timestamp: expect.any(String), status: 400, error: "Bad Request", path,
    message: `Invalid body field '${field}': contains an unpaired UTF-16 surrogate, which is no character; send well-formed Unicode`,
  },
});

test.each([
  ['{"name":"ab\\ud800"}', "name"],
  ['{"name":"x\\udc00y"}', "name"],
  ['{"name":"ok","metadata":{"a":{"b":[1,"\\ud83d"]}}}', "metadata.a.b[1]"],
  ['{"name":"ok","metadata":{"k\\udfff":1}}', "metadata.k\ufffd"],
])("%s → 400 naming %s, as JSON or as any other declared type, and nothing is stored", async (raw, field) => {
  expect(await send("POST", "/v1/corpus/", raw)).toEqual(refusal("/v1/corpus/", field));
  expect(await send("POST", "/v1/corpus/", raw, "application/x-www-form-urlencoded")).toEqual(refusal("/v1/corpus/", field));
  expect((await org.api("GET", "/v1/corpus/")).body.total).toBe(0);
});

test("a whole pair, escaped or not, is an ordinary character and is stored as sent", async () => {
  const made = await send("POST", "/v1/corpus/", '{"name":"ok 😀 \\ud83d\\ude00","metadata":{"e":"\\ud83d\\udc4d"}}');
  expect(made.status).toBe(200);
  const got = await org.api("GET", `/v1/corpus/${made.body.id}`);
  expect({ name: got.body.name, metadata: got.body.metadata }).toEqual({ name: "ok 😀 😀", metadata: { e: "👍" } });
});

test("the check applies wherever a body is read: a patch and a document init", async () => {
  const c = await org.api("POST", "/v1/corpus/", { name: "c" });
  expect(await send("PATCH", `/v1/corpus/${c.body.id}`, '{"description":"half \\ud83d"}')).toEqual(refusal(`/v1/corpus/${c.body.id}`, "description"));
  expect(await send("POST", "/v1/doc/init", `{"corpusId":"${c.body.id}","filename":"Report\\ud83d.pdf","contentType":"application/pdf"}`)).toEqual(refusal("/v1/doc/init", "filename"));
  expect((await org.api("GET", `/v1/corpus/${c.body.id}`)).body.description).toBeNull();
});

test("a JWT whose sub, email or name holds half a pair is refused (403), and no session is stored for it", async () => {
  // The sub is every session's and post's owner: "ab\ud800cd" was stored as "ab𐁣d", "x\udfff" as "".
  const c = await org.api("POST", "/v1/corpus/", { name: "owners" });
  for (const [claim, claims, sub] of [["sub", {}, "ab\ud800cd"], ["sub", {}, "x\udfff"], ["email", { email: "a\ud83d@b.c" }, "u"], ["name", { name: "An\udc00" }, "u"]] as const) {
    const jwt = await org.jwt(claims, { sub });
    const r = await org.api("POST", "/v1/session/", { corpusIds: [c.body.id] }, { authorization: `Bearer ${jwt}` });
    expect([claim, r.status, r.body.message]).toEqual([claim, 403, `Invalid bearer token: its ${claim} claim holds an unpaired UTF-16 surrogate, which is no character`]);
  }
  expect((await org.api("GET", "/v1/session/")).body.total).toBe(0);
  // A whole pair is an ordinary character.
  const ok = await org.api("POST", "/v1/session/", { corpusIds: [c.body.id] }, { authorization: `Bearer ${await org.jwt({}, { sub: "user 😀" })}` });
  expect([ok.status, ok.body.userId]).toEqual([200, "user 😀"]);
});

test("a half pair under a very long key is named by the start of its path, not by all of it", async () => {
  // The path alone was the key's 100,000 characters of message.
  const key = "k".repeat(100_000);
  const r = await send("POST", "/v1/corpus/", `{"name":"long","extra":{"${key}":"\\ud800"}}`);
  expect([r.status, r.body.message]).toEqual([
    400, `Invalid body field '${`extra.${key}`.slice(0, 200)}…': contains an unpaired UTF-16 surrogate, which is no character; send well-formed Unicode`,
  ]);
});
