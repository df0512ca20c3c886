// An access token's ttl defaults to 3600 seconds (spec, Authentication). An operator may cap
// lifetimes lower (--max-token-ttl 600); a request that leaves ttl out, valid by the spec, used
// to answer 400 "Invalid body field 'ttl': at most 600 seconds", naming a field it never sent.
// The cap is then the default; a ttl given above it is still refused, naming ttl.
import { expect, test } from "bun:test";
import { startKbqa } from "../helpers/server.ts";

const lifetime = (body: { createdAt: string; expiresAt: string }) => (Date.parse(body.expiresAt) - Date.parse(body.createdAt)) / 1000;

test("with a cap below 3600, a token without ttl lives as long as the cap allows, and more is refused naming ttl", async () => {
  await using k = await startKbqa({ flags: ["--max-token-ttl", "600"] });
  const org = await k.org();
  const made = await org.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"] });
  expect([made.status, lifetime(made.body)]).toEqual([200, 600]);
  const given = await org.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"], ttl: 60 });
  expect([given.status, lifetime(given.body)]).toEqual([200, 60]);
  const over = await org.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"], ttl: 601 });
  expect({ status: over.status, message: over.body.message }).toEqual({ status: 400, message: "Invalid body field 'ttl': at most 600 seconds" });
  // The token made without ttl works.
  const r = await fetch(`${k.url}/v1/corpus/`, { headers: { "X-Access-Token": made.body.token } });
  expect(r.status).toBe(200);
});

test("with a cap at or above 3600, the default stays the spec's 3600", async () => {
  await using k = await startKbqa({ flags: ["--max-token-ttl", "3600"] });
  const org = await k.org();
  const made = await org.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"] });
  expect([made.status, lifetime(made.body)]).toEqual([200, 3600]);
});
