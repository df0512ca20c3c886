// A body that fails its schema is refused in about the time its parse takes. Elysia's own refusal
// printed the whole body indented, with up to 64 errors each holding its failing value, before
// the error handler said a word: a 14 MB body nested 63 levels (under the depth and size limits)
// held the event loop 6.5–16 s, so every request of every organization waited (see
// src/http/quiet-refusals.ts). The route still names the field at fault, in the same words, and
// still blames a bad path parameter before the body, as Elysia's order of checks does.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
let jwt: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  jwt = await org.jwt();
});
afterAll(() => k?.stop());

const post = async (path: string, raw: string, method = "POST") => {
  const r = await fetch(`${k.url}${path}`, { method, headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: raw, signal: AbortSignal.timeout(60_000) });
  return { status: r.status, message: ((await r.json()) as { message: string }).message };
};

/** A value nested `depth` levels (arrays), the innermost holding `n` numbers. */
const spine = (depth: number, n: number) => "[".repeat(depth - 1) + "[" + "1,".repeat(n - 1) + "1]" + "]".repeat(depth - 1);

test("a 14 MB body nested 63 levels that fails validation does not hold the server: /pub/ping keeps answering", async () => {
  const raw = `{"name":"n","description":${spine(63, 7_000_000)}}`;
  expect(raw.length).toBeGreaterThan(14_000_000);
  expect(raw.length).toBeLessThan(16 * 1024 * 1024);
  // The bound scales with this machine's speed: the parse of these bytes here, however loaded.
  const t0 = performance.now();
  JSON.parse(raw);
  const parseMs = performance.now() - t0;
  const bound = Math.max(3_000, 6 * parseMs);

  let done = false;
  let worst = 0;
  let pings = 0;
  const pinger = (async () => {
    while (!done) {
      const p0 = performance.now();
      const r = await fetch(`${k.url}/pub/ping`, { signal: AbortSignal.timeout(60_000) });
      await r.arrayBuffer();
      worst = Math.max(worst, performance.now() - p0);
      pings++;
    }
  })();
  const refused = await post("/v1/corpus/", raw);
  done = true;
  await pinger;
  expect(refused).toEqual({ status: 400, message: "Invalid body field 'description': must be a string of at most 10000 characters, or null" });
  expect(pings).toBeGreaterThan(0);
  // Before: the ping waited for the whole refusal, 6.5–16 s (about 25–40 parses of the body).
  expect(worst).toBeLessThan(bound);
});

test("other costly shapes are refused naming the field, in the same words as before", async () => {
  const wideObjects = "[" + Array(100_000).fill('{"a":1,"b":"x"}').join(",") + "]";
  const manyKeys = "{" + Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(",") + "}";
  const cases: [string, string, string, string][] = [
    ["POST", "/v1/corpus/", `{"name":"n","description":${wideObjects}}`, "Invalid body field 'description': must be a string of at most 10000 characters, or null"],
    ["POST", "/v1/corpus/", `{"name":"n","description":${manyKeys}}`, "Invalid body field 'description': must be a string of at most 10000 characters, or null"],
    ["POST", "/v1/corpus/", `{"name":"n","description":"${"x".repeat(2_000_000)}"}`, "Invalid body field 'description': must be a string of at most 10000 characters, or null"],
    ["POST", "/v1/corpus/", `{"extra":${spine(63, 100_000)}}`, "Invalid body field 'name': is required"],
    // Many failing items: the first is named.
    ["POST", "/v1/session/", `{"corpusIds":[${Array(100).fill(`{"a":[${"1,".repeat(10_000)}1]}`).join(",")}]}`, "Invalid body field 'corpusIds[0]': must be a UUID"],
    ["POST", "/v1/session/", `{"corpusIds":[${Array(1_000_000).fill('"x"').join(",")}]}`, "Invalid body field 'corpusIds': must be an array of 1 to 100 items, each a UUID"],
    // A route whose schema has defaults (Elysia merges them into the body before its check).
    ["POST", "/v1/agent/", `{"name":"T","topK":0,"extra":${wideObjects}}`, "Invalid body field 'topK': must be an integer from 1 to 100 (got 0)"],
    ["PATCH", `/v1/agent/${crypto.randomUUID()}`, `{"topK":"500","extra":${wideObjects}}`, "Invalid body field 'topK': must be an integer from 1 to 100 (got 500)"],
    ["POST", "/v1/auth/access-token", `{"scope":${wideObjects}}`, "Invalid body field 'scope[0]': must be a string"],
  ];
  for (const [method, path, raw, message] of cases) expect({ path, ...(await post(path, raw, method)) }).toEqual({ path, status: 400, message });
});

test("a bad path parameter is still named before a bad body", async () => {
  expect(await post("/v1/corpus/not-a-uuid", `{"name":5,"extra":${spine(63, 1000)}}`, "PATCH")).toEqual({
    status: 400,
    message: `Invalid path parameter 'corpusId': must be a UUID (got "not-a-uuid")`,
  });
  expect(await post("/v1/agent/not-a-uuid", `{"topK":0}`, "PATCH")).toEqual({ status: 400, message: `Invalid path parameter 'agentId': must be a UUID (got "not-a-uuid")` });
});

test("valid bodies still pass, with the defaults and number forms Elysia applies", async () => {
  const made = await org.api("POST", "/v1/corpus/", { name: "ok", description: "d", metadata: { a: [1, { b: 2 }] } });
  expect(made.status).toBe(200);
  const agent = await org.api("POST", "/v1/agent/", { name: `a-${crypto.randomUUID().slice(0, 8)}`, topK: "7" });
  expect([agent.status, agent.body.topK]).toEqual([200, 7]);
  const patched = await org.api("PATCH", `/v1/agent/${agent.body.id}`, { topK: 9 });
  expect([patched.status, patched.body.topK]).toEqual([200, 9]);
});
