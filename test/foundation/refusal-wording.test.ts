import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// One mistake, one wording: a query filter naming another organization's corpus was refused in
// three phrasings, and an access token creating an access token was told its scope lacked
// something, when the rule is that only an RSA JWT may do it.
let k: Kbqa;
let a: Org;
let b: Org;
let foreign: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  b = await k.org();
  foreign = (await b.api("POST", "/v1/corpus/", { name: "b" })).body.id;
});
afterAll(() => k?.stop());

test("a filter naming another organization's corpus: 403 with the same words on every search", async () => {
  for (const path of [`/v1/doc/?corpusId=${foreign}`, `/v1/doc/q?corpusId=${foreign}`, `/v1/chunk/q?corpusId=${foreign}`, `/v1/session/q?corpusId=${foreign}`]) {
    const r = await a.api("GET", path);
    expect({ path, status: r.status, message: r.body.message }).toEqual({ path, status: 403, message: `Corpus ${foreign} is not a corpus of your organization` });
  }
});

test("an access token cannot create access tokens, and is told the rule", async () => {
  const token = (await a.api("POST", "/v1/auth/access-token", { scope: ["doc:read"] })).body.token;
  const r = await k.request("POST", "/v1/auth/access-token", { scope: ["doc:read"] }, { "x-access-token": token });
  expect([r.status, r.body.message]).toEqual([403, "Access tokens can only be created with an RSA JWT, not with an access token"]);
});

// The caller's own deleted corpus was "not a corpus of your organization" to document and
// session searches and an empty page to chunk search: now all three answer the empty page.
test("a filter naming one's own deleted corpus: an empty page on every search", async () => {
  const gone = (await a.api("POST", "/v1/corpus/", { name: "gone" })).body.id;
  await a.api("POST", "/v1/session/", { corpusIds: [gone] });
  expect((await a.api("DELETE", `/v1/corpus/${gone}`)).status).toBe(200);
  for (const path of [`/v1/doc/?corpusId=${gone}`, `/v1/doc/q?corpusId=${gone}`, `/v1/chunk/q?corpusId=${gone}`, `/v1/session/q?corpusId=${gone}`]) {
    const r = await a.api("GET", path);
    expect({ path, status: r.status, total: r.body.total, items: r.body.items }).toEqual({ path, status: 200, total: 0, items: [] });
  }
});
