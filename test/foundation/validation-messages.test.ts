import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// A refused field is named as the client writes it and the rule is said in words. TypeBox words
// a failed union ("should be one of: 'integer', 'integer'") without the rule, and blamed a bad
// element on its whole array; every optional-or-null field and every number that also takes its
// string form is such a union.
let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = (await a.api("POST", "/v1/corpus/", { name: "c" })).body.id;
});
afterAll(() => k?.stop());

const refusal = async (method: string, path: string, body?: unknown) => {
  const r = await a.api(method, path, body);
  return [r.status, r.body.message];
};
const init = (extra: Record<string, unknown>) => ({ corpusId, filename: "a.txt", contentType: "text/plain", ...extra });

test("numbers: the range in words, with the value sent", async () => {
  expect(await refusal("GET", "/v1/corpus/?pageSize=abc")).toEqual([400, `Invalid query parameter 'pageSize': must be an integer from 1 to 100 (got "abc")`]);
  expect(await refusal("GET", "/v1/corpus/?pageIndex=-1")).toEqual([400, "Invalid query parameter 'pageIndex': must be an integer of at least 0 (got -1)"]);
  expect(await refusal("POST", "/v1/agent/", { name: "T", topK: 0 })).toEqual([400, "Invalid body field 'topK': must be an integer from 1 to 100 (got 0)"]);
  expect(await refusal("POST", "/v1/auth/access-token", { scope: ["doc:read"], ttl: 10 })).toEqual([400, "Invalid body field 'ttl': must be an integer greater than 10 (got 10)"]);
});

test("nullable fields: the rule and that null is allowed, never 'should be null'", async () => {
  expect(await refusal("POST", "/v1/agent/", { name: "T", rerankTopK: -1 })).toEqual([400, "Invalid body field 'rerankTopK': must be an integer from 1 to 100, or null (got -1)"]);
  expect(await refusal("POST", "/v1/agent/", { name: "T", temperature: 2 })).toEqual([400, "Invalid body field 'temperature': must be a number from 0 to 1, or null (got 2)"]);
  expect(await refusal("POST", "/v1/corpus/", { name: "x", description: "d".repeat(10_001) })).toEqual([400, "Invalid body field 'description': must be a string of at most 10000 characters, or null"]);
});

test("enumerations list their values, whether literals or patterned query strings", async () => {
  expect(await refusal("POST", "/v1/agent/", { name: "T", thinkingMode: "MEDIUM" })).toEqual([400, `Invalid body field 'thinkingMode': must be one of LOW, HIGH (got "MEDIUM")`]);
  expect(await refusal("GET", `/v1/doc/q?corpusId=${corpusId}&sort=NAME`)).toEqual([400, `Invalid query parameter 'sort': must be one of CREATED_AT, UPDATED_AT, FILENAME, SIZE (got "NAME")`]);
});

test("a bad element is named by its index, inside a nullable array too", async () => {
  expect(await refusal("POST", "/v1/doc/init", init({ tags: ["a", 5] }))).toEqual([400, "Invalid body field 'tags[1]': must be a string (got 5)"]);
  // The raw list's schema bound (1000) is not the rule a client must follow (32 after dropping blanks and duplicates).
  expect(await refusal("POST", "/v1/doc/init", init({ tags: "hr" }))).toEqual([400, `Invalid body field 'tags': must be an array of at most 32 tags, each a string of at most 64 characters, or null (got "hr")`]);
  expect(await refusal("POST", "/v1/doc/init", init({ tags: ["ok", " ", "x".repeat(65)] }))).toEqual([400, "Invalid body field 'tags[2]': must be at most 64 characters after trimming (got 65)"]);
  expect(await refusal("PATCH", `/v1/chunk/${crypto.randomUUID()}`, { pages: [0] })).toEqual([400, "Invalid body field 'pages[0]': must be an integer from 1 to 1000000 (got 0)"]);
});

test("rules checked past the schema name their field in the same words", async () => {
  expect(await refusal("POST", "/v1/doc/init", init({ contentType: "application/pdfx" }))).toEqual([415, `Invalid body field 'contentType': "application/pdfx" is not an accepted type; see GET /v1/doc/accept`]);
  expect(await refusal("GET", "/v1/usage/all?timeframe=day")).toEqual([400, `Invalid query parameter 'timeframe': must be one of Day, Week, Month, Year, or omitted for Month (got "day")`]);
});

test("identifiers, missing fields and bodies that are not objects", async () => {
  expect(await refusal("POST", "/v1/doc/init", init({ corpusId: "nope" }))).toEqual([400, `Invalid body field 'corpusId': must be a UUID (got "nope")`]);
  expect(await refusal("GET", "/v1/session/q?corpusId=nope")).toEqual([400, `Invalid query parameter 'corpusId': must be a UUID (got "nope")`]);
  expect(await refusal("POST", "/v1/doc/init", { filename: "a.txt", contentType: "text/plain" })).toEqual([400, "Invalid body field 'corpusId': is required"]);
  expect(await refusal("POST", "/v1/auth/access-token", { scope: [] })).toEqual([400, "Invalid body field 'scope': must be a non-empty array, each a string"]);
  expect(await refusal("POST", "/v1/corpus/", [])).toEqual([400, "Invalid request body: must be a JSON object"]);
});

test("a body that is JSON but not an object → 400, also where Elysia would coerce it to {} (schemas with numbers)", async () => {
  const agent = (await a.api("POST", "/v1/agent/", { name: "coerced" })).body.id;
  for (const body of ["5", "[]", "null", `"x"`]) {
    for (const path of [`/v1/agent/${agent}`, `/v1/corpus/${corpusId}`]) {
      const r = await k.request("PATCH", path, body, { authorization: `Bearer ${await a.jwt()}` });
      expect({ body, path, status: r.status, message: r.body.message }).toEqual({ body, path, status: 400, message: "Invalid request body: must be a JSON object" });
    }
  }
});

test("names people read: not only blanks, no control characters, bounded (corpus, agent, file name, token user)", async () => {
  const rule = (field: string, max: number) => `Invalid body field '${field}': must be 1 to ${max} characters, not only blanks, without control characters`;
  expect(await refusal("POST", "/v1/corpus/", { name: "   " })).toEqual([400, rule("name", 256)]);
  expect(await refusal("POST", "/v1/corpus/", { name: "a\u0000b" })).toEqual([400, rule("name", 256)]);
  expect(await refusal("POST", "/v1/agent/", { name: "two\nlines" })).toEqual([400, rule("name", 200)]);
  expect(await refusal("POST", "/v1/doc/init", init({ filename: "a\r\nb.txt" }))).toEqual([400, rule("filename", 1024)]);
  expect(await refusal("POST", "/v1/auth/access-token", { scope: ["doc:read"], userId: "u".repeat(100_000) })).toEqual([400, rule("userId", 256)]);
  // Everything else readable is kept as given.
  const ok = await a.api("POST", "/v1/corpus/", { name: " Ünïcödé 名前 — ok " });
  expect([ok.status, ok.body.name]).toEqual([200, " Ünïcödé 名前 — ok "]);
});

test("chunk pages are bounded: 1e20 is refused rather than stored where no search finds it", async () => {
  expect(await refusal("PATCH", `/v1/chunk/${crypto.randomUUID()}`, { pages: [1e20] })).toEqual([400, "Invalid body field 'pages[0]': must be an integer from 1 to 1000000 (got 100000000000000000000)"]);
});

test("a number's string form is accepted wherever a number is, nullable fields too", async () => {
  const r = await a.api("POST", "/v1/agent/", { name: "strings", topK: "5", rerankTopK: "3", temperature: "0.5" });
  expect([r.status, r.body.topK, r.body.rerankTopK, r.body.temperature]).toEqual([200, 5, 3, 0.5]);
  expect(await refusal("POST", "/v1/agent/", { name: "T", temperature: "warm" })).toEqual([400, `Invalid body field 'temperature': must be a number from 0 to 1, or null (got "warm")`]);
});

test("a number's string form is a decimal number: blanks, hex and exponents are refused, not read as 0, 16 or 10", async () => {
  // Read with JavaScript's `+value`, {"historySize":"   "} stored 0 with a 200.
  const before = (await a.api("GET", "/v1/agent/")).body.length;
  for (const [field, sent, rule] of [
    ["historySize", "   ", "an integer from 0 to 100, or null"], ["temperature", "  ", "a number from 0 to 1, or null"],
    ["topK", "0x10", "an integer from 1 to 100"], ["topK", "1e1", "an integer from 1 to 100"], ["rerankTopK", " 7 ", "an integer from 1 to 100, or null"],
  ] as const) {
    expect(await refusal("POST", "/v1/agent/", { name: "blank", [field]: sent })).toEqual([400, `Invalid body field '${field}': must be ${rule} (got ${JSON.stringify(sent)})`]);
  }
  expect(await refusal("POST", "/v1/auth/access-token", { scope: ["doc:read"], ttl: " 60" })).toEqual([400, `Invalid body field 'ttl': must be an integer greater than 10 (got " 60")`]);
  expect((await a.api("GET", "/v1/agent/")).body.length).toBe(before);
});

test("a number's string form out of range names its body field, as the number itself does", async () => {
  // Range-checked only after Elysia decoded it, it was "Invalid request property: …" with no field.
  for (const [field, sent, rule] of [
    ["topK", "500", "an integer from 1 to 100"], ["rerankTopK", "0", "an integer from 1 to 100"],
    ["historySize", "101", "an integer from 0 to 100"], ["temperature", "5", "a number from 0 to 1"],
  ] as const) {
    expect(await refusal("POST", "/v1/agent/", { name: "range", [field]: sent })).toEqual([400, `Invalid body field '${field}': must be ${rule} (got ${sent})`]);
  }
  expect(await refusal("POST", "/v1/auth/access-token", { scope: ["doc:read"], ttl: "5" })).toEqual([400, "Invalid body field 'ttl': must be an integer greater than 10 (got 5)"]);
  expect(await refusal("PATCH", `/v1/chunk/${crypto.randomUUID()}`, { pages: [2, "0"] })).toEqual([400, "Invalid body field 'pages': must be an integer from 1 to 1000000 (got 0)"]);
  // The same name in the query string: still the query parameter's refusal.
  expect(await refusal("GET", "/v1/corpus/?pageSize=500")).toEqual([400, "Invalid query parameter 'pageSize': must be an integer from 1 to 100 (got 500)"]);
});

test("a refusal quotes a long value in part, not whole: a 100,000-character scope entry is not sent back", async () => {
  const long = "h".repeat(100_000);
  const agent = (await a.api("POST", "/v1/agent/", { name: "quoted" })).body.id;
  expect(await refusal("POST", "/v1/auth/access-token", { scope: [long] })).toEqual([400, `Invalid body field 'scope[0]': "${long.slice(0, 64)}" is not DOMAIN:ACTION`]);
  expect(await refusal("PATCH", `/v1/agent/${agent}`, { reset: [long] })).toEqual([
    400, `Invalid body field 'reset[0]': '${long.slice(0, 64)}' cannot be reset (allowed: description, rerankTopK, context, behaviour, spirit, historySize, temperature, rerankModel, baseModel)`,
  ]);
  expect(await refusal("GET", `/v1/usage/all?timeframe=${long.slice(0, 12_000)}`)).toEqual([
    400, `Invalid query parameter 'timeframe': must be one of Day, Week, Month, Year, or omitted for Month (got "${long.slice(0, 40)}")`,
  ]);
});
