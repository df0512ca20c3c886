// A search's `json` fragment holding a number beyond JSON's range (1e400, which JSON.parse reads
// as Infinity) answered 200 with an empty page and echoed the fragment with null in its place: a
// filter the client never sent, and no hint why nothing matched. It is refused as such metadata
// is refused on writes (metadata-out-of-range-number.test.ts), naming the parameter and the place.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { seedDocument } from "../chunks/helpers.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  await org.api("POST", "/v1/session/", { corpusIds: [corpusId], metadata: { n: 1, x: { y: [1, 2] } } });
  seedDocument(k, org.orgId, corpusId, [{ pages: [1], metadata: { n: 1 } }]);
});
afterAll(() => k?.stop());

const rule = (at: string) => `Invalid query parameter 'json': must hold numbers a JSON number can represent (the one at ${at} is beyond ±1.8e308)`;

test("session and chunk searches: a json number beyond JSON's range → 400 naming the parameter and the place", async () => {
  for (const path of ["/v1/session/q", "/v1/chunk/q"]) {
    for (const [json, at] of [['{"n":1e400}', "n"], ['{"x":{"y":[1,-1e999]}}', "x.y[1]"]]) {
      const r = await org.api("GET", `${path}?json=${encodeURIComponent(json!)}`);
      expect({ path, status: r.status, message: r.body.message }).toEqual({ path, status: 400, message: rule(at!) });
    }
  }
});

test("the largest double is still a filter like any other", async () => {
  const r = await org.api("GET", `/v1/session/q?json=${encodeURIComponent('{"n":1.7976931348623157e308}')}`);
  expect([r.status, r.body.total, r.body.filters.json]).toEqual([200, 0, { n: Number.MAX_VALUE }]);
  const hit = await org.api("GET", `/v1/session/q?json=${encodeURIComponent('{"n":1e0}')}`);
  expect([hit.status, hit.body.total]).toEqual([200, 1]);
});
