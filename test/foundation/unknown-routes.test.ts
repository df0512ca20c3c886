import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// Spec, Authentication rule 5: a missing or invalid credential answers 403. Unknown /v1 paths and
// methods answered 404 before any credential was looked at, so a caller with none could map
// which paths and methods exist.
let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
});
afterAll(() => k?.stop());

const unknown = [
  ["GET", "/v1/nothing"],
  ["PUT", "/v1/agent/"],
  ["DELETE", "/v1/corpus/"],
  ["GET", `/v1/doc/${crypto.randomUUID()}/nope`],
] as const;

test("without a credential, or with an invalid one: 403, as for existing paths", async () => {
  for (const [method, path] of unknown) {
    for (const headers of [{}, { authorization: "Bearer not-a-jwt" }] as Record<string, string>[]) {
      const r = await k.request(method, path, undefined, headers);
      expect({ method, path, status: r.status, error: r.body.error }).toEqual({ method, path, status: 403, error: "Forbidden" });
    }
  }
});

test("with a valid credential: 404 naming the method and path, in the error object", async () => {
  for (const [method, path] of unknown) {
    const r = await a.api(method, path);
    expect({ status: r.status, message: r.body.message, path: r.body.path }).toEqual({ status: 404, message: `No route for ${method} ${path}`, path });
  }
});

test("outside /v1 nothing needs a credential: an unknown path is a plain 404", async () => {
  const r = await k.request("GET", "/nothing");
  expect([r.status, r.body.message]).toEqual([404, "No route for GET /nothing"]);
  expect((await k.request("GET", "/pub/ping")).status).toBe(200);
});
