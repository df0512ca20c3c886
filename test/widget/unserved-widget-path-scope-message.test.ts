// The widget family "has no scope name" (spec, Authentication rule 9), and a scope entry is
// exactly DOMAIN:ACTION over the nine domains of rule 6. An access token calling a widget path or
// method the family does not serve (a typo, the wrong method) was refused with "it needs
// webhook:read": a scope no one can mint (POST /v1/auth/access-token refuses it with 400). The
// refusal stays a 403 (rule 5: no scope covers the request), and names only entries that exist.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let a: Org;
let token: string;
const WIDGET_SET = ["corpus:read", "session:read", "session:create", "post:read", "post:create"];
const VALID = /^(config|auth|session|doc|corpus|post|usage|agent|chunk):(create|read|update|delete)$/;

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org("widget-unserved");
  token = (await a.api("POST", "/v1/auth/access-token", { scope: WIDGET_SET, userId: "visitor" })).body.token;
}, 60_000);
afterAll(() => k?.stop());

const as = (method: string, path: string, body?: unknown) => k.request(method, path, body, { "x-access-token": token });

/** The entries a refusal says would cover the request, if it names any. */
const named = (message: string) => /\(it needs (.+)\)$/.exec(message)?.[1]?.split(" or ") ?? [];

test("the scope that would be named for an unserved widget path cannot even be minted", async () => {
  const r = await a.api("POST", "/v1/auth/access-token", { scope: ["webhook:read"] });
  expect(r.status).toBe(400);
});

test("an unserved widget path or method is a 403 that names no impossible scope", async () => {
  for (const [method, path] of [
    ["GET", "/v1/webhook/widget/nothing"],
    ["DELETE", "/v1/webhook/widget/init"],
    ["GET", "/v1/webhook/widget/init"],
    ["POST", "/v1/webhook/widget/"],
    ["PATCH", "/v1/webhook/widget/attachment/0b6f1f3e-8f53-4b7b-9d1c-2f8f5d1c0a11"],
  ] as const) {
    const r = await as(method, path, method === "GET" || method === "DELETE" ? undefined : {});
    expect({ method, path, status: r.status }).toEqual({ method, path, status: 403 });
    expect(r.body).toMatchObject({ status: 403, error: "Forbidden", path });
    expect(r.body.message).toStartWith(`Scope does not cover ${method} ${path}`);
    expect(r.body.message).not.toContain("webhook:");
    for (const entry of named(r.body.message)) expect(entry).toMatch(VALID);
  }
});

test("a path outside every domain names no entry either; served paths still name theirs", async () => {
  const r = await as("GET", "/v1/nothing/here");
  expect(r.status).toBe(403);
  expect(r.body.message).not.toContain("nothing:read");
  for (const entry of named(r.body.message)) expect(entry).toMatch(VALID);

  const usage = (await a.api("POST", "/v1/auth/access-token", { scope: ["usage:read"] })).body.token;
  const init = await k.request("POST", "/v1/webhook/widget/init", { corpusIds: [crypto.randomUUID()] }, { "x-access-token": usage });
  expect(init.status).toBe(403);
  expect(init.body.message).toBe("Scope does not cover POST /v1/webhook/widget/init (it needs session:create)");
});
