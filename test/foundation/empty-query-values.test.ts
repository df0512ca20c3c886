import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// An optional query parameter sent empty reads as absent, on every route (spec: session search's
// userId). Before, some were ignored (lang=, tags=) and others refused (pageSize=, status=, sort=).
let k: Kbqa;
let a: Org;
let corpusId: string;

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = (await a.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  for (const name of ["b", "a"]) await a.api("POST", "/v1/corpus/", { name });
  await a.api("POST", "/v1/session/", { corpusIds: [corpusId], metadata: { tag: "" } });
});
afterAll(() => k?.stop());

const cases = (): [string, string][] => [
  ["/v1/corpus/", "pageSize=&pageIndex="],
  [`/v1/doc/?corpusId=${corpusId}`, "status=&sort=&order=&pageSize=&createdAfter=&createdBefore="],
  [`/v1/doc/q?corpusId=${corpusId}`, "tagsMatch=&lang=&contentType=&provider=&q=&tags=&status="],
  ["/v1/chunk/", "body=&pageSize="],
  [`/v1/chunk/q?corpusId=${corpusId}`, "documentId=&hash=&page=&json=&body="],
  ["/v1/session/", "pageIndex="],
  ["/v1/session/q?key=tag&value=", "userId=&corpusId=&json=&pageSize="],
  ["/v1/usage/all", "timeframe="],
];

test("an optional parameter sent empty answers as if it were left out", async () => {
  for (const [path, empties] of cases()) {
    const sep = path.includes("?") ? "&" : "?";
    // The usage report says when it was made; everything else must match.
    const get = async (p: string) => {
      const r = await a.api("GET", p);
      return { status: r.status, body: { ...r.body, timestamp: undefined } };
    };
    const without = await get(path);
    const withEmpty = await get(`${path}${sep}${empties}`);
    expect({ path, status: without.status }).toEqual({ path, status: 200 });
    expect({ path, status: withEmpty.status, body: withEmpty.body }).toEqual({ path, status: 200, body: without.body });
  }
});

test("empty values are dropped one by one: the given values still apply", async () => {
  const r = await a.api("GET", "/v1/corpus/?pageSize=1&pageIndex=");
  expect(r.status).toBe(200);
  expect(r.body.items.map((c: { name: string }) => c.name)).toEqual(["a"]);
  expect(r.body.pageSize).toBe(1);
});

test("an empty value that is data is kept: value= searches for the empty string", async () => {
  const r = await a.api("GET", "/v1/session/q?key=tag&value=");
  expect(r.body.total).toBe(1);
  expect(r.body.filters).toEqual({ key: "tag", value: "" });
  const other = await a.api("GET", "/v1/session/q?key=nope&value=");
  expect(other.body.total).toBe(0);
});

test("a required parameter sent empty is still refused", async () => {
  for (const path of ["/v1/doc/?corpusId=", "/v1/post/?sessionId=", `/v1/post/q?sessionId=&body=hello`]) {
    const r = await a.api("GET", path);
    expect({ path, status: r.status }).toEqual({ path, status: 400 });
    expect(r.body.message).toMatch(/'(corpusId|sessionId)'/);
  }
  const q = await a.api("GET", `/v1/chunk/q?corpusId=${corpusId}&key=`);
  expect(q.status).toBe(400);
  expect(q.body.message).toContain("'key'");
});

test("an empty value given twice, or beside a value, is not a repeat", async () => {
  const r = await a.api("GET", "/v1/corpus/?pageSize=&pageSize=2");
  expect(r.status).toBe(200);
  expect(r.body.pageSize).toBe(2);
});
