// Query-string mistakes Elysia passed over: a parameter that takes one value given twice kept the
// last (a URL builder that appended got page 20 while asking for page 10), and a value that is
// not percent-encoded UTF-8 was kept as its raw text (a question stored as "%FF%FE"), and a number
// was read by Number() (pageIndex=0x10 was page 16).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
});
afterAll(() => k?.stop());

const refusal = (path: string, key: string) => ({
  timestamp: expect.any(String), status: 400, error: "Bad Request",
  message: `Invalid query parameter '${key}': given more than once; it takes one value`, path,
});

test.each([
  ["/v1/corpus/", "pageSize=10&pageSize=20", "pageSize"],
  ["/v1/doc/", "corpusId=C&pageIndex=0&corpusId=C", "corpusId"],
  ["/v1/doc/q", "corpusId=C&sort=FILENAME&order=ASC&sort=SIZE", "sort"],
  ["/v1/doc/q", "corpusId=C&q=a&q=b", "q"],
  ["/v1/session/", "pageIndex=1&pageIndex=1", "pageIndex"],
])("%s?%s → 400 naming %s, whether or not the values differ", async (path, query, key) => {
  const r = await org.api("GET", `${path}?${query.replaceAll("C", corpusId)}`);
  expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: refusal(path, key) });
});

test("a value that is not percent-encoded UTF-8 → 400 naming the parameter, instead of being kept as its raw text", async () => {
  const sessionId = (await org.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id;
  for (const [path, query, key, raw] of [
    ["/v1/post/q", `sessionId=${sessionId}&body=%FF%FE`, "body", "%FF%FE"],
    ["/v1/post/q", `body=%E0%A4%A&sessionId=${sessionId}`, "body", "%E0%A4%A"],
    ["/v1/doc/q", `corpusId=${corpusId}&q=%ZZ`, "q", "%ZZ"],
  ] as const) {
    const r = await org.api("GET", `${path}?${query}`);
    expect({ status: r.status, body: r.body }).toEqual({
      status: 400,
      body: { timestamp: expect.any(String), status: 400, error: "Bad Request", message: `Invalid query parameter '${key}': not valid percent-encoded UTF-8 (got "${raw}")`, path },
    });
  }
  const posts = await org.api("GET", `/v1/post/?sessionId=${sessionId}`);
  expect(posts.body.total).toBe(0);
  // Well-formed escapes, '+' for a space and a lone '%' elsewhere in the URL still work.
  const ok = await org.api("GET", `/v1/doc/q?corpusId=${corpusId}&q=caf%C3%A9+menu`);
  expect(ok.status).toBe(200);
});

test("a number not written in decimal → 400 naming the parameter (Number() read 0x10 as 16, 1e1 as 10)", async () => {
  for (const [path, key, raw, rule] of [
    ["/v1/corpus/", "pageIndex", "0x10", "an integer of at least 0"],
    ["/v1/session/", "pageSize", "1e1", "an integer from 1 to 100"],
    ["/v1/chunk/q", "page", "Infinity", "an integer of at least 1"],
  ] as const) {
    const r = await org.api("GET", `${path}?${key}=${raw}`);
    expect({ status: r.status, message: r.body.message }).toEqual({ status: 400, message: `Invalid query parameter '${key}': must be ${rule} in decimal digits (got "${raw}")` });
  }
  const ok = await org.api("GET", "/v1/corpus/?pageSize=%2B10&pageIndex=0");
  expect({ status: ok.status, pageSize: ok.body.pageSize }).toEqual({ status: 200, pageSize: 10 });
});

test("parameters the spec makes repeatable still repeat, and one the route does not know is ignored as before", async () => {
  for (const query of [`corpusId=${corpusId}&tags=a&tags=b`, `corpusId=${corpusId}&status=READY&status=FAILED`, `corpusId=${corpusId}&unknown=1&unknown=2`]) {
    const r = await org.api("GET", `/v1/doc/q?${query}`);
    expect({ query, status: r.status, total: r.body.total }).toEqual({ query, status: 200, total: 0 });
  }
});

test("without a valid credential the answer is 403, as for any other parameter mistake", async () => {
  const r = await fetch(`${k.url}/v1/corpus/?pageSize=1&pageSize=2`);
  expect(r.status).toBe(403);
});

test("HEAD answers with the status GET gives for the same query", async () => {
  for (const query of ["pageSize=1&pageSize=2", "pageSize=0x10", "pageSize=", "pageSize=500", "pageSize=5"]) {
    const get = await org.api("GET", `/v1/corpus/?${query}`);
    const head = await org.api("HEAD", `/v1/corpus/?${query}`);
    expect({ query, head: head.status }).toEqual({ query, head: get.status });
  }
});
