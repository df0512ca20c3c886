// A revocation sent to a mistyped path (a base URL ending in "/" gives /v1/auth//access-token/…,
// or the prefix in capitals, or the hyphen percent-encoded) is refused, so the token stays live;
// --log-requests still wrote the path with the token in it, a working credential in the log.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { loggedPath } from "../../src/http/request-log.ts";

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--log-requests"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

const MISTYPED = [
  (t: string) => `/v1/auth//access-token/${t}`,
  (t: string) => `/V1/auth/access-token/${t}`,
  (t: string) => `/v1/auth/access%2Dtoken/${t}`,
  (t: string) => `/v1/auth/access-token//${t}`,
  (t: string) => `/v1/auth/${t}`,
];

test("a token in a mistyped revocation path is not logged, and the refused revocation left it live", async () => {
  const token = (await a.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"] })).body.token as string;
  const statuses = [];
  for (const path of MISTYPED) statuses.push((await a.api("DELETE", path(token))).status);
  expect(statuses.every((s) => s === 403 || s === 404 || s === 405)).toBe(true);
  const lines = await waitFor(() => {
    const l = k.stderr().split("\n").filter((x) => x.includes('"msg":"request"') && x.includes('"DELETE"'));
    return l.length >= MISTYPED.length ? l : undefined;
  }, "the DELETE request lines");
  expect(lines).toHaveLength(MISTYPED.length);
  expect(k.stderr()).not.toContain(token.slice(5));
  // Still a credential: this is why its value must stay out of the log.
  expect((await k.request("GET", "/v1/corpus/", undefined, { "x-access-token": token })).status).toBe(200);
});

test("loggedPath keeps the rest of the path and still names the usual revocation path", () => {
  const t = "kbqa_" + "A".repeat(43);
  expect(loggedPath(`/v1/auth/access-token/${t}`)).toBe("/v1/auth/access-token/(token)");
  expect(loggedPath(`/v1/auth//access-token/${t}/`)).toBe("/v1/auth//access-token/(token)/");
  expect(loggedPath(`/v1/auth/kbqa%5F${"b".repeat(43)}`)).toBe("/v1/auth/(token)");
  expect(loggedPath("/v1/usage/user/kbqa_team")).toBe("/v1/usage/user/kbqa_team");
  expect(loggedPath("/v1/corpus/0b1f0c1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f")).toBe("/v1/corpus/0b1f0c1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f");
});
