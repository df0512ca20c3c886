// A path the API does not have (404) or serves under other methods (405) has no body to read,
// but the body was parsed first: with a malformed one the answer was "400 malformed JSON", so
// whether a client learnt that its method or path is wrong depended on what it sent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test("404 and 405 whatever the body: malformed JSON, a form, or valid JSON", async () => {
  const jwt = await org.jwt();
  const cases = [["POST", "/v1/doc/", 405, "GET"], ["PUT", "/v1/usage/all", 405, "GET"], ["POST", "/v1/nothing", 404, null], ["PATCH", "/v1/corpus/x/y", 404, null]] as const;
  for (const [method, path, want, allow] of cases) {
    for (const [type, body] of [["application/json", "{not json"], ["application/x-www-form-urlencoded", "a=1"], ["application/json", '{"a":1}']]) {
      const r = await fetch(`${k.url}${path}`, { method, headers: { authorization: `Bearer ${jwt}`, "content-type": type! }, body });
      const j = await r.json();
      expect({ method, path, body, status: r.status, allow: r.headers.get("allow"), errorStatus: j.status }).toEqual({ method, path, body, status: want, allow, errorStatus: want });
    }
  }
});

test("a route that exists still refuses a malformed body with 400", async () => {
  const r = await fetch(`${k.url}/v1/corpus/`, { method: "POST", headers: { authorization: `Bearer ${await org.jwt()}`, "content-type": "application/json" }, body: "{not json" });
  expect([r.status, (await r.json()).message]).toEqual([400, "Malformed request body: expected valid JSON"]);
});
