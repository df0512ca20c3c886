// Every body field may nest at most 64 levels, the rule metadata already had. Elysia words a
// refused body by printing it indented, in time growing with the square of its depth: a 40 KB
// body nested 20,000 levels held the server for 20 s, one nested 5,000 levels in a list of
// strings overflowed the stack (500), and the walk for unpaired surrogates overflowed at 50,000
// levels, which the client was told was malformed JSON.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "deep" })).body.id;
});
afterAll(() => k?.stop());

const arrays = (n: number) => "[".repeat(n) + "]".repeat(n);
const objects = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
const send = async (method: string, path: string, raw: string) => {
  const t0 = performance.now();
  const r = await fetch(`${k.url}${path}`, { method, headers: { authorization: `Bearer ${await org.jwt()}`, "content-type": "application/json" }, body: raw, signal: AbortSignal.timeout(10_000) });
  return { status: r.status, message: ((await r.json()) as { message: string }).message, ms: performance.now() - t0 };
};
const tooDeep = (field: string) => ({ status: 400, message: `Invalid body field '${field}': must be nested at most 64 levels deep`, ms: expect.any(Number) });

test.each([
  ["POST", "/v1/auth/access-token", "scope", (d: string) => `{"scope":${d}}`],
  ["POST", "/v1/session/", "corpusIds", (d: string) => `{"corpusIds":${d}}`],
  ["POST", "/v1/doc/init", "chunk", (d: string) => `{"corpusId":"${corpusId}","filename":"a.md","contentType":"text/markdown","chunk":{"a":${d}}}`],
  ["POST", "/v1/corpus/", "description", (d: string) => `{"name":"n","description":${d}}`],
  ["POST", "/v1/corpus/", "metadata", (d: string) => `{"name":"n","metadata":{"a":${d}}}`],
  ["POST", "/v1/corpus/", "extra", (d: string) => `{"name":"n","extra":${d}}`],
] as [string, string, string, (d: string) => string][])("%s %s: '%s' nested 50,000 levels is refused at once, naming the field", async (method, path, field, body) => {
  for (const deep of [arrays(50_000), objects(50_000)]) {
    const r = await send(method, path, body(deep));
    expect(r).toEqual(tooDeep(field));
    expect(r.ms).toBeLessThan(2_000);
  }
});

test("64 levels are accepted, in an ignored field too; 65 are not", async () => {
  // The field's value is level 1, as for metadata.
  const ok = await send("POST", "/v1/corpus/", `{"name":"n","extra":${arrays(64)},"metadata":${objects(64)}}`);
  expect(ok.status).toBe(200);
  expect(await send("POST", "/v1/corpus/", `{"name":"n","extra":${arrays(65)}}`)).toEqual(tooDeep("extra"));
  expect(await send("POST", "/v1/corpus/", `{"name":"n","metadata":${objects(65)}}`)).toEqual(tooDeep("metadata"));
});
