import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT, generateKeyPair, exportSPKI, base64url } from "jose";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, sharedKeyPair, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org("jwt-org");
});
afterAll(() => k.stop());

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const now = () => Math.floor(Date.now() / 1000);

async function expect403(headers: Record<string, string>) {
  const r = await k.request("GET", "/v1/corpus/", undefined, headers);
  expect(r.status).toBe(403);
  expect(Object.keys(r.body).sort()).toEqual(["error", "message", "path", "status", "timestamp"]);
  expect(r.body.status).toBe(403);
  expect(r.body.path).toBe("/v1/corpus/");
  return r.body.message as string;
}

describe("RSA JWT verification", () => {
  test("a valid RS256 token is accepted and whoami names the organization and user", async () => {
    const jwt = await org.jwt({ email: "a@b.c", name: "Ann" }, { sub: "ann" });
    const r = await k.request("GET", "/v1/auth/whoami", undefined, bearer(jwt));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ orgId: org.orgId, userId: "ann", email: "a@b.c", name: "Ann", scope: [], credential: "jwt" });
  });

  test("missing credential and malformed headers answer 403", async () => {
    await expect403({});
    await expect403({ authorization: "Basic abc" });
    await expect403(bearer("not.a.jwt"));
  });

  test("alg none is refused", async () => {
    const header = base64url.encode(JSON.stringify({ alg: "none", kid: org.kid }));
    const payload = base64url.encode(JSON.stringify({ sub: "x", exp: now() + 600 }));
    expect(await expect403(bearer(`${header}.${payload}.`))).toContain("RS256");
  });

  test("HS256 signed with the public key is refused", async () => {
    const { pem } = await sharedKeyPair();
    const secret = new TextEncoder().encode(pem);
    const t = await new SignJWT({}).setProtectedHeader({ alg: "HS256", kid: org.kid }).setSubject("x").setExpirationTime(now() + 600).sign(secret);
    expect(await expect403(bearer(t))).toContain("RS256");
  });

  test("unknown kid, missing exp, expired, future nbf, missing sub, wrong key are refused", async () => {
    const { privateKey } = await sharedKeyPair();
    const sign = (b: SignJWT, kid = org.kid) => b.setProtectedHeader({ alg: "RS256", kid }).sign(privateKey);
    await expect403(bearer(await sign(new SignJWT({}).setSubject("x").setExpirationTime(now() + 600), "no-such-kid")));
    await expect403(bearer(await sign(new SignJWT({}).setSubject("x"))));
    await expect403(bearer(await sign(new SignJWT({}).setSubject("x").setExpirationTime(now() - 120))));
    await expect403(bearer(await sign(new SignJWT({}).setSubject("x").setExpirationTime(now() + 600).setNotBefore(now() + 120))));
    await expect403(bearer(await sign(new SignJWT({}).setExpirationTime(now() + 600))));
    const other = await generateKeyPair("RS256", { modulusLength: 2048 });
    const forged = await new SignJWT({}).setProtectedHeader({ alg: "RS256", kid: org.kid }).setSubject("x").setExpirationTime(now() + 600).sign(other.privateKey);
    await expect403(bearer(forged));
  });

  test("leeway: nbf 10 s ahead and exp 10 s ago are still accepted", async () => {
    const { privateKey } = await sharedKeyPair();
    const t = await new SignJWT({}).setProtectedHeader({ alg: "RS256", kid: org.kid }).setSubject("x").setNotBefore(now() + 10).setExpirationTime(now() - 10).sign(privateKey);
    expect((await k.request("GET", "/v1/corpus/", undefined, bearer(t))).status).toBe(200);
  });

  test("a deactivated key is refused on the next request, and works again once activated; a deleted key is refused", async () => {
    const o = await k.org("keyflip");
    const jwt = await o.jwt();
    expect((await k.request("GET", "/v1/corpus/", undefined, bearer(jwt))).status).toBe(200);
    expect((await k.cli(["key", "deactivate", o.kid])).code).toBe(0);
    expect((await k.request("GET", "/v1/corpus/", undefined, bearer(jwt))).status).toBe(403);
    expect((await k.cli(["key", "activate", o.kid])).code).toBe(0);
    expect((await k.request("GET", "/v1/corpus/", undefined, bearer(jwt))).status).toBe(200);
    expect((await k.cli(["key", "delete", o.kid])).code).toBe(0);
    expect((await k.request("GET", "/v1/corpus/", undefined, bearer(jwt))).status).toBe(403);
  });

  test("a kid registered again answers for its new organization or key, even for a token seen before", async () => {
    const o = await k.org("kid-reuse");
    const jwt = await o.jwt({}, { sub: "u" });
    expect((await k.request("GET", "/v1/auth/whoami", undefined, bearer(jwt))).body.orgId).toBe(o.orgId);
    expect((await k.cli(["key", "delete", o.kid])).code).toBe(0);
    // Same public key under the same kid, now for another organization.
    const other = JSON.parse((await k.cli(["org", "create", "kid-reuse-2"])).stdout).id as string;
    const pemFile = join(k.dataDir, "reuse.pem");
    writeFileSync(pemFile, (await sharedKeyPair()).pem);
    expect((await k.cli(["key", "add", "--org", other, "--public-key", pemFile, "--kid", o.kid])).code).toBe(0);
    const r = await k.request("GET", "/v1/auth/whoami", undefined, bearer(jwt));
    expect({ status: r.status, orgId: r.body.orgId }).toEqual({ status: 200, orgId: other });
    // Another key under the same kid: the old token's signature no longer verifies.
    expect((await k.cli(["key", "delete", o.kid])).code).toBe(0);
    const fresh = await generateKeyPair("RS256", { modulusLength: 2048 });
    writeFileSync(pemFile, await exportSPKI(fresh.publicKey));
    expect((await k.cli(["key", "add", "--org", other, "--public-key", pemFile, "--kid", o.kid])).code).toBe(0);
    expect(await expect403(bearer(jwt))).toContain("Invalid bearer token");
  });

  test("scope claim as a space-separated string restricts the token", async () => {
    const jwt = await org.jwt({ scope: "corpus:read auth:read" });
    expect((await k.request("GET", "/v1/corpus/", undefined, bearer(jwt))).status).toBe(200);
    expect((await k.request("POST", "/v1/corpus/", { name: "x" }, bearer(jwt))).status).toBe(403);
    const who = await k.request("GET", "/v1/auth/whoami", undefined, bearer(jwt));
    expect(who.body.scope).toEqual(["corpus:read", "auth:read"]);
  });
});
