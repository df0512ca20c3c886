import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put } from "./helpers.ts";

// Query parameters that once reached SQL unchecked or overflowed it, and inputs that were
// silently altered instead of refused.
let k: Kbqa;
let a: Org;
let b: Org;
let corpusId: string;
const ids: string[] = [];

beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  corpusId = await corpus(a);
  for (const [filename, tags] of [["alpha.txt", ["x"]], ["beta.txt", ["x", "y"]]] as const) {
    ids.push((await initOk(a, { corpusId, filename, tags })).document.id);
  }
  await initOk(b, { corpusId: await corpus(b), filename: "b-secret.txt" });
});
afterAll(() => k.stop());

const list = (query: string) => a.api("GET", `/v1/doc/?corpusId=${corpusId}${query}`);
const idsOf = (r: { body: { items: { id: string }[] } }) => r.body.items.map((d) => d.id).sort();

describe("the plain document listing takes only the listing's parameters", () => {
  test("search-only parameters (order, sort, tagsMatch, q, contentType) are ignored, never put into SQL", async () => {
    const plain = await list("");
    expect(plain.status).toBe(200);
    const probe = "ASC, (SELECT CASE WHEN (SELECT substr(filename,1,1) FROM documents LIMIT 1)='b' THEN 1 ELSE abs(-9223372036854775808) END)";
    for (const extra of [`&order=${encodeURIComponent(probe)}`, "&order=xyz", "&sort=BOGUS", "&sort=__proto__", "&tagsMatch=ALL&tags=y", "&q=alpha", "&contentType=application/pdf"]) {
      const r = await list(extra);
      expect([extra, r.status]).toEqual([extra, 200]);
      if (!extra.includes("tags=y")) expect(idsOf(r)).toEqual([...ids].sort());
    }
    // tags alone keeps its listing meaning (any of them), whatever tagsMatch says.
    expect(idsOf(await list("&tags=y&tags=x&tagsMatch=ALL"))).toEqual([...ids].sort());
  });

  test("the search route still refuses a bad order or sort with 400 naming it", async () => {
    for (const [param, value] of [["order", "xyz"], ["sort", "__proto__"]]) {
      const r = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&${param}=${value}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(param);
    }
  });
});

test("a pageIndex far past the end is an empty page, not an error", async () => {
  const session = await a.api("POST", "/v1/session/", { corpusIds: [corpusId] });
  expect(session.status).toBe(200);
  // 10^300 in decimal digits: numbers in a query string are written in decimal (1e300 is a 400).
  const huge = "1" + "0".repeat(300);
  for (const path of [
    `/v1/corpus/?pageIndex=${huge}`,
    `/v1/doc/?corpusId=${corpusId}&pageIndex=10000000000000000000`,
    `/v1/doc/q?corpusId=${corpusId}&pageIndex=${huge}`,
    `/v1/session/?pageIndex=${huge}`,
    `/v1/post/?sessionId=${session.body.id}&pageIndex=${huge}`,
    `/v1/chunk/?corpusId=${corpusId}&pageIndex=${huge}`,
  ]) {
    const r = await a.api("GET", path);
    expect([path, r.status, r.body.items]).toEqual([path, 200, []]);
  }
});

test("a preview page index too large for an exact integer is refused even before the page count is known", async () => {
  const r = await a.api("GET", `/v1/doc/${ids[0]}/preview-urls?pages=99999999999999999999999`);
  expect([r.status, r.body.message]).toEqual([400, expect.stringContaining("'pages'")]);
  // An exact one passes the parameter check; nothing has been uploaded for this document, so the answer is
  // then download-url's 409, not URLs that could only 404.
  expect((await a.api("GET", `/v1/doc/${ids[0]}/preview-urls?pages=123456`)).status).toBe(409);
});

test("impossible calendar dates are refused with 400 naming the field, not moved to another day", async () => {
  const bad = await a.api("POST", "/v1/doc/init", { corpusId, filename: "d.txt", contentType: "text/plain", docCreate: "2024-02-30" });
  expect(bad.status).toBe(400);
  expect(bad.body.message).toContain("docCreate");
  const patch = await a.api("PATCH", `/v1/doc/${ids[0]}`, { docUpdate: "2023-04-31T10:00:00Z" });
  expect(patch.status).toBe(400);
  expect(patch.body.message).toContain("docUpdate");
  const q = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&createdAfter=2024-02-30`);
  expect(q.status).toBe(400);
  expect(q.body.message).toContain("createdAfter");
  const leap = await a.api("POST", "/v1/doc/init", { corpusId, filename: "leap.txt", contentType: "text/plain", docCreate: "2024-02-29" });
  expect([leap.status, leap.body.document?.docCreate]).toEqual([200, "2024-02-29T00:00:00.000Z"]);
});

test("a content type declared with parameters or other case is stored as the listed type; its URL wants the declared header", async () => {
  const declared = "TEXT/Plain; charset=utf-8";
  const i = await initOk(a, { corpusId, filename: "p.txt", contentType: declared });
  expect(i.document.contentType).toBe("text/plain");
  expect((await put(i.uploadUrl, "hello", "text/plain")).status).toBe(403);
  expect((await put(i.uploadUrl, "hello", declared)).status).toBe(200);
  const found = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&contentType=text/plain&q=p.txt`);
  expect(found.body.items.map((d: { id: string }) => d.id)).toEqual([i.document.id]);
  const dl = await a.api("GET", `/v1/doc/${i.document.id}/download-url`);
  expect([dl.status, dl.body.contentType]).toEqual([200, "text/plain"]);
});
