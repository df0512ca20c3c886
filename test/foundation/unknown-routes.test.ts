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

test("with a valid credential: 404 for a path the API does not have, in the error object", async () => {
  for (const path of ["/v1/nothing", `/v1/doc/${crypto.randomUUID()}/nope`]) {
    const r = await a.api("GET", path);
    expect({ status: r.status, message: r.body.message, path: r.body.path }).toEqual({ status: 404, message: `No route for GET ${path}`, path });
  }
});

test("with a valid credential, a path served under other methods: 405 with Allow", async () => {
  for (const [method, path, allowed] of [["PUT", "/v1/agent/", ["GET", "POST"]], ["DELETE", "/v1/corpus/", ["GET", "POST"]], ["POST", `/v1/doc/${crypto.randomUUID()}`, ["DELETE", "GET", "PATCH"]]] as const) {
    const r = await fetch(`${k.url}${path}`, { method, headers: { authorization: `Bearer ${await a.jwt()}` } });
    const body = (await r.json()) as { message: string; allowed: string[] };
    expect({ status: r.status, allow: r.headers.get("allow"), body }).toEqual({
      status: 405,
      allow: allowed.join(", "),
      body: expect.objectContaining({ message: `${method} is not allowed on ${path} (allowed: ${allowed.join(", ")})`, allowed }),
    });
  }
});

test("outside /v1 nothing needs a credential: an unknown path is a plain 404", async () => {
  const r = await k.request("GET", "/nothing");
  expect([r.status, r.body.message]).toEqual([404, "No route for GET /nothing"]);
  expect((await k.request("GET", "/pub/ping")).status).toBe(200);
});
