// The first-generation widget takes the answer's language in its path. It had a rule of its own
// (subtags of 2 to 8 characters, 16 in all), so BCP 47 tags that GET /v1/post/q and the widget's
// q accept as `lang` ("en-US-x-twain", with its singleton; "zh-Hant-CN-x-private1", 21
// characters) were a 400 there: the same post field, judged two ways.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test("the path's language follows the rule of the query's lang: same tags accepted, same refused", async () => {
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const sessionId = (await org.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id;
  const token = (await org.api("POST", "/v1/auth/access-token", { scope: ["post:read", "post:create"] })).body.token;
  const seen = [];
  for (const lang of ["en-US-x-twain", "zh-Hant-CN-x-private1", "pt-BR", "abcd", "e", "en-"]) {
    const query = await org.api("GET", `/v1/post/q?sessionId=${sessionId}&body=Hello&lang=${lang}`);
    const legacy = await k.request("POST", `/webhook/v1/widget/${lang}`, { sessionId, body: "Hello" }, { "x-access-token": token });
    seen.push({ lang, query: [query.status, query.body.answer?.lang], legacy: [legacy.status, legacy.body.answer?.lang] });
  }
  expect(seen).toEqual([
    { lang: "en-US-x-twain", query: [200, "en-US-x-twain"], legacy: [200, "en-US-x-twain"] },
    { lang: "zh-Hant-CN-x-private1", query: [200, "zh-Hant-CN-x-private1"], legacy: [200, "zh-Hant-CN-x-private1"] },
    { lang: "pt-BR", query: [200, "pt-BR"], legacy: [200, "pt-BR"] },
    { lang: "abcd", query: [400, undefined], legacy: [400, undefined] },
    { lang: "e", query: [400, undefined], legacy: [400, undefined] },
    { lang: "en-", query: [400, undefined], legacy: [400, undefined] },
  ]);
});
