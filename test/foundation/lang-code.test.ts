// `lang` is an ISO 639 language (spec: Document, Post). `<b>`, `123` and `xx-notalang!` were
// stored, served back as a post's or document's language and filtered on exactly; `EN` and `en`
// were two languages to the exact-match filter.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
let sessionId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  sessionId = (await org.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id;
});
afterAll(() => k?.stop());

const RULE = "must be an ISO 639 language code such as en or pt-BR";

test.each(["<b>", "123", "e", "english!", "en--US"])("lang %p → 400 naming lang, at document init and on a question, and nothing is written", async (lang) => {
  const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "a.txt", contentType: "text/plain", lang });
  expect({ status: init.status, message: init.body.message }).toEqual({ status: 400, message: `Invalid body field 'lang': ${RULE}, or null (got ${JSON.stringify(lang)})` });
  const q = await org.api("GET", `/v1/post/q?sessionId=${sessionId}&body=${encodeURIComponent("Where is it?")}&lang=${encodeURIComponent(lang)}`);
  expect({ status: q.status, message: q.body.message }).toEqual({ status: 400, message: `Invalid query parameter 'lang': ${RULE} (got ${JSON.stringify(lang)})` });
  expect((await org.api("GET", `/v1/doc/?corpusId=${corpusId}`)).body.total).toBe(0);
  expect((await org.api("GET", `/v1/post/?sessionId=${sessionId}`)).body.total).toBe(0);
});

test("the primary language is stored in lower case, a region as given; empty means not given", async () => {
  const langOf = async (lang: string) => (await org.api("POST", "/v1/doc/init", { corpusId, filename: `${lang || "none"}.txt`, contentType: "text/plain", lang })).body.document.lang;
  expect([await langOf("EN"), await langOf("pt-BR"), await langOf("zh_Hant"), await langOf("")]).toEqual(["en", "pt-BR", "zh_Hant", undefined]);
  const q = await org.api("GET", `/v1/post/q?sessionId=${sessionId}&body=${encodeURIComponent("Where is it?")}&lang=FR`);
  expect({ status: q.status, query: q.body.query?.lang, answer: q.body.answer?.lang }).toEqual({ status: 200, query: "fr", answer: "fr" });
});
