import { afterAll, beforeAll, expect, test } from "bun:test";
import { SignJWT, base64url } from "jose";
import { connect } from "node:net";
import { startKbqa, sharedKeyPair, type Kbqa, type Org } from "../helpers/server.ts";

// Credentials shaped to slip past type assumptions, and a Host header Elysia once misread.
let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org("hardening");
});
afterAll(() => k.stop());

const now = () => Math.floor(Date.now() / 1000);
const list = (token: string) => k.request("GET", "/v1/corpus/", undefined, { authorization: `Bearer ${token}` });

test("a kid header that is not a string answers 403, never 500, signed or not", async () => {
  const payload = base64url.encode(JSON.stringify({ sub: "x", exp: now() + 600 }));
  for (const kid of [{}, ["x", "y"], 42]) {
    const header = base64url.encode(JSON.stringify({ alg: "RS256", kid }));
    const r = await list(`${header}.${payload}.AAAA`);
    expect([JSON.stringify(kid), r.status, r.body.message]).toEqual([JSON.stringify(kid), 403, expect.stringContaining("kid")]);
  }
  const { privateKey } = await sharedKeyPair();
  const signed = await new SignJWT({})
    .setProtectedHeader({ alg: "RS256", kid: [org.kid] as unknown as string })
    .setSubject("x")
    .setExpirationTime(now() + 600)
    .sign(privateKey);
  for (let i = 0; i < 2; i++) expect((await list(signed)).status).toBe(403); // the second use once hit a cache path
});

test("a scope claim of blanks only is refused instead of reading as unrestricted", async () => {
  for (const scope of [[""], " ", ["  ", ""]]) {
    const r = await list(await org.jwt({ scope }));
    expect([JSON.stringify(scope), r.status]).toEqual([JSON.stringify(scope), 403]);
  }
  // Absent or empty still means unrestricted; an unknown entry grants nothing beside the known ones.
  expect((await list(await org.jwt({ scope: [] }))).status).toBe(200);
  expect((await list(await org.jwt({ scope: "" }))).status).toBe(200);
  const mixed = await org.jwt({ scope: "openid corpus:read" });
  expect((await list(mixed)).status).toBe(200);
  const create = await k.request("POST", "/v1/corpus/", { name: "x" }, { authorization: `Bearer ${mixed}` });
  expect(create.status).toBe(403);
});

/** One HTTP/1.1 request over a raw socket, so the Host header is exactly what a proxy or container network sends. */
function rawGet(path: string, host: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const port = Number(new URL(k.url).port);
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => {
      const extra = Object.entries(headers).map(([n, v]) => `${n}: ${v}\r\n`).join("");
      s.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`);
    });
    let data = "";
    // Bun may keep the socket open despite "Connection: close": the response ends at Content-Length.
    s.on("data", (d) => {
      data += d.toString();
      const head = data.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(data)?.[1] ?? NaN);
      if (head >= 0 && data.length - head - 4 >= length) {
        s.destroy();
        resolve({ status: Number(data.split(" ")[1]), body: data.slice(head + 4) });
      }
    });
    s.on("error", reject);
  });
}

test("a short Host header (a container named 'api') routes and authorizes the full /v1/ path", async () => {
  const jwt = await org.jwt({ scope: ["corpus:read"] });
  const created = await org.api("POST", "/v1/corpus/", { name: "short-host" });
  for (const host of ["api", "kb", "a"]) {
    const r = await rawGet(`/v1/corpus/${created.body.id}`, host, { authorization: `Bearer ${jwt}` });
    expect([host, r.status]).toEqual([host, 200]);
    expect(r.body).toContain('"name":"short-host"');
  }
  const missing = await rawGet("/v1/nothing-here", "api", { authorization: `Bearer ${jwt}` });
  expect(missing.body).toContain('"path":"/v1/nothing-here"');
});

test("only a bearer token takes precedence over X-Access-Token: another Authorization scheme leaves the access token in charge", async () => {
  const jwt = await org.jwt();
  const made = await k.request("POST", "/v1/auth/access-token", { scope: ["corpus:read"] }, { authorization: `Bearer ${jwt}` });
  const token = made.body.token as string;
  const get = (headers: Record<string, string>) => k.request("GET", "/v1/corpus/", undefined, headers);
  expect((await get({ authorization: "Basic dXNlcjpwYXNz", "x-access-token": token })).status).toBe(200);
  expect((await get({ authorization: "Basic dXNlcjpwYXNz" })).status).toBe(403);
  expect((await get({ authorization: "Bearer not-a-jwt", "x-access-token": token })).status).toBe(403);
  expect((await get({ authorization: `Bearer ${jwt}`, "x-access-token": "bogus" })).status).toBe(200);
  // A malformed bearer header is still a bearer header (rule 1: it wins, and fails): its shape
  // must not hand the request to the access token.
  for (const authorization of [`Bearer ${jwt} extra`, `Bearer ${jwt}, Bearer ${jwt}`, `bearer ${jwt},x`, "Bearer, Basic abc", `Bearer	${jwt} ${jwt}`]) {
    const r = await get({ authorization, "x-access-token": token });
    expect([authorization.slice(0, 12), r.status, r.body.message]).toEqual([authorization.slice(0, 12), 403, "Authorization header must be 'Bearer <JWT>'"]);
  }
});
