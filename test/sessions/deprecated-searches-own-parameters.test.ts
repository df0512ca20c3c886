import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// The deprecated searches take their own parameters only (spec: byUser takes userId and
// corpusId, byMetadata key and value); any other is ignored, as the spec's Versioning rule 3
// has it for fields the service does not use. They had been handed to GET /v1/session/q whole,
// so a stray `key` or `json` refused the request or narrowed it.
let k: Kbqa;
let a: Org;
let b: Org;
let mine: string;
let foreign: string;
beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  mine = (await a.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  foreign = (await b.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  for (const channel of ["web", "app"]) {
    expect((await a.api("POST", "/v1/session/", { corpusIds: [mine], metadata: { channel } })).status).toBe(200);
  }
});
afterAll(() => k?.stop());

test("byUser ignores key, value and json: no 400, no narrowing, nothing echoed", async () => {
  for (const extra of ["&key=channel", "&value=web", "&json=not-json", `&json=${encodeURIComponent('{"channel":"none"}')}`]) {
    const r = await a.api("GET", `/v1/session/byUser?userId=user-1${extra}`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(2);
    expect(r.body.filters).toEqual({ userId: "user-1" });
  }
});

test("byMetadata ignores userId, corpusId and json", async () => {
  for (const extra of ["&userId=nobody", `&corpusId=${foreign}`, `&json=${encodeURIComponent('{"channel":"app"}')}`, "&json=[]"]) {
    const r = await a.api("GET", `/v1/session/byMetadata?key=channel&value=web${extra}`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(1);
    expect(r.body.items[0].metadata).toEqual({ channel: "web" });
    expect(r.body.filters).toEqual({ key: "channel", value: "web" });
  }
});

test("their own parameters still apply", async () => {
  expect((await a.api("GET", `/v1/session/byUser?userId=user-1&corpusId=${foreign}`)).status).toBe(403);
  expect((await a.api("GET", "/v1/session/byUser?userId=other")).body.total).toBe(0);
  expect((await a.api("GET", "/v1/session/byMetadata?key=channel&value=none")).body.total).toBe(0);
});
