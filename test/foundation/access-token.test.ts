import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--max-token-ttl", "7200"] });
  org = await k.org("tok-org");
});
afterAll(() => k.stop());

const mint = (body: unknown) => org.api("POST", "/v1/auth/access-token", body);
const withToken = (t: string) => ({ "x-access-token": t });

describe("access tokens", () => {
  test("created with a JWT: opaque, scoped, default ttl 3600", async () => {
    const r = await mint({ scope: ["corpus:read"], email: "w@x.y" });
    expect(r.status).toBe(200);
    expect(r.body.scope).toEqual(["corpus:read"]);
    expect(r.body.token.length).toBeGreaterThanOrEqual(43);
    const ttl = (Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt)) / 1000;
    expect(ttl).toBe(3600);
    const who = await k.request("GET", "/v1/corpus/", undefined, withToken(r.body.token));
    expect(who.status).toBe(200);
  });

  test("a token for another user carries that user's identity, not the creator's email and name", async () => {
    const creator = { authorization: `Bearer ${await org.jwt({ email: "alice@x.y", name: "Alice" }, { sub: "alice" })}` };
    const whoamiOf = async (body: unknown) => {
      const t = await k.request("POST", "/v1/auth/access-token", body, creator);
      const me = await k.request("GET", "/v1/auth/whoami", undefined, withToken(t.body.token));
      return { userId: me.body.userId, email: me.body.email, name: me.body.name };
    };
    expect(await whoamiOf({ scope: ["auth:read"], userId: "visitor" })).toEqual({ userId: "visitor", email: undefined, name: undefined });
    expect(await whoamiOf({ scope: ["auth:read"], userId: "visitor", email: "v@x.y" })).toEqual({ userId: "visitor", email: "v@x.y", name: undefined });
    expect(await whoamiOf({ scope: ["auth:read"] })).toEqual({ userId: "alice", email: "alice@x.y", name: "Alice" });
    expect(await whoamiOf({ scope: ["auth:read"], userId: "alice", email: "other@x.y" })).toEqual({ userId: "alice", email: "other@x.y", name: "Alice" });
  });

  test("invalid requests answer 400 naming the field", async () => {
    for (const [body, field] of [
      [{}, "scope"],
      [{ scope: [] }, "scope"],
      [{ scope: ["corpus:fly"] }, "scope"],
      [{ scope: ["corpus"] }, "scope"],
      [{ scope: ["corpus:read"], ttl: 10 }, "ttl"],
      [{ scope: ["corpus:read"], ttl: "sixty" }, "ttl"],
      [{ scope: ["corpus:read"], ttl: 7201 }, "ttl"],
    ] as const) {
      const r = await mint(body);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(field);
    }
  });

  test("an access token cannot create another access token", async () => {
    const t = (await mint({ scope: ["auth:create", "auth:read"] })).body.token;
    const r = await k.request("POST", "/v1/auth/access-token", { scope: ["corpus:read"] }, withToken(t));
    expect(r.status).toBe(403);
  });

  test("scope is enforced per domain and action", async () => {
    const t = (await mint({ scope: ["corpus:read"] })).body.token;
    expect((await k.request("POST", "/v1/corpus/", { name: "n" }, withToken(t))).status).toBe(403);
    expect((await k.request("GET", "/v1/config/model", undefined, withToken(t))).status).toBe(403);
    const c = await org.api("POST", "/v1/corpus/", { name: "c" });
    expect((await k.request("PATCH", `/v1/corpus/${c.body.id}`, { name: "d" }, withToken(t))).status).toBe(403);
    expect((await k.request("DELETE", `/v1/corpus/${c.body.id}`, undefined, withToken(t))).status).toBe(403);
    expect((await k.request("GET", `/v1/corpus/${c.body.id}`, undefined, withToken(t))).status).toBe(200);
    // The refusal names what would cover the request, so a client knows which token to ask for.
    expect((await k.request("POST", "/v1/corpus/", { name: "n" }, withToken(t))).body.message).toBe("Scope does not cover POST /v1/corpus/ (it needs corpus:create)");
    expect((await k.request("GET", "/v1/post/q?sessionId=x&body=y", undefined, withToken(t))).body.message).toBe("Scope does not cover GET /v1/post/q (it needs post:read or post:create)");
    expect((await k.request("HEAD", `/v1/corpus/${c.body.id}`, undefined, withToken(t))).status).toBe(200);
  });

  test("revocation takes effect on the next request; another organization cannot revoke it", async () => {
    const t = (await mint({ scope: ["corpus:read"] })).body.token;
    expect((await k.request("GET", "/v1/corpus/", undefined, withToken(t))).status).toBe(200);
    const other = await k.org("other");
    expect((await other.api("DELETE", `/v1/auth/access-token/${encodeURIComponent(t)}`)).status).toBe(404);
    expect((await k.request("GET", "/v1/corpus/", undefined, withToken(t))).status).toBe(200);
    const del = await org.api("DELETE", `/v1/auth/access-token/${encodeURIComponent(t)}`);
    expect(del.status).toBe(200);
    expect((await k.request("GET", "/v1/corpus/", undefined, withToken(t))).status).toBe(403);
  });

  test("the bearer token wins when both headers are sent", async () => {
    const t = (await mint({ scope: ["corpus:read"] })).body.token;
    const jwt = await org.jwt({}, { sub: "bearer-user" });
    const r = await k.request("GET", "/v1/auth/whoami", undefined, { authorization: `Bearer ${jwt}`, "x-access-token": t });
    expect(r.body.userId).toBe("bearer-user");
    expect(r.body.credential).toBe("jwt");
    // A bad bearer is not rescued by a good access token.
    const bad = await k.request("GET", "/v1/corpus/", undefined, { authorization: "Bearer junk", "x-access-token": t });
    expect(bad.status).toBe(403);
  });

  test("a restricted JWT cannot mint a wider token", async () => {
    const jwt = await org.jwt({ scope: ["auth:create", "corpus:read"] });
    const h = { authorization: `Bearer ${jwt}` };
    expect((await k.request("POST", "/v1/auth/access-token", { scope: ["corpus:read"] }, h)).status).toBe(200);
    expect((await k.request("POST", "/v1/auth/access-token", { scope: ["corpus:delete"] }, h)).status).toBe(403);
  });

  test("userId defaults to the JWT subject and can be set", async () => {
    const a = (await mint({ scope: ["auth:read"] })).body.token;
    expect((await k.request("GET", "/v1/auth/whoami", undefined, withToken(a))).body.userId).toBe("user-1");
    const b = (await mint({ scope: ["auth:read"], userId: "widget-7" })).body.token;
    const who = await k.request("GET", "/v1/auth/whoami", undefined, withToken(b));
    expect(who.body).toEqual({ orgId: org.orgId, userId: "widget-7", scope: ["auth:read"], credential: "access-token" });
  });
});
