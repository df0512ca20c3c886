import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, session } from "../posts/helpers.ts";

// API answers hold one organization's data and are chosen by a credential that may travel in
// X-Access-Token, a header shared caches do not know as one (RFC 9111 3.5 names Authorization
// only): without Cache-Control a proxy in front of the service could keep a listing fetched with
// one token and hand it to the next client asking the same URL.
let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--cors-origins", "https://a.example"] });
  org = await k.org();
});
afterAll(() => k.stop());

test("answers under /v1, errors included, tell caches to store nothing", async () => {
  const minted = await org.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"] });
  expect(minted.status).toBe(200);
  const seen = [
    await k.request("GET", "/v1/corpus/", undefined, { "x-access-token": minted.body.token }),
    await org.api("GET", "/v1/auth/whoami"),
    await org.api("GET", "/v1/doc/00000000-0000-4000-8000-000000000000"),
    await k.request("GET", "/v1/corpus/"),
    await org.api("GET", "/v1/no/such/route"),
  ].map((r) => [r.status, r.headers.get("cache-control")]);
  expect(seen).toEqual([[200, "no-store"], [200, "no-store"], [404, "no-store"], [403, "no-store"], [404, "no-store"]]);
});

test("a streamed answer is not stored either", async () => {
  const sid = await session(org, [await corpus(org)]);
  const res = await fetch(`${k.url}/v1/post/q?sessionId=${sid}&body=hello&lang=en`, {
    headers: { authorization: `Bearer ${await org.jwt()}`, accept: "text/event-stream" },
  });
  await res.text();
  expect([res.status, res.headers.get("content-type"), res.headers.get("cache-control")]).toEqual([200, "text/event-stream; charset=utf-8", "no-store"]);
});

test("the documentation's static files stay cacheable, and the health check is not an API answer", async () => {
  const ping = await fetch(`${k.url}/pub/ping`);
  const css = await fetch(`${k.url}/docs/assets/swagger-ui.css`);
  await css.arrayBuffer();
  expect([ping.status, ping.headers.get("cache-control"), css.status, css.headers.get("cache-control")]).toEqual([200, null, 200, "public, max-age=86400"]);
});

test("with a list of origins, an answer to a request without Origin still varies on it", async () => {
  // A cache keeping the answer without the allow-origin header would hand it to a listed site's
  // browser, which would then refuse it.
  const r = await fetch(`${k.url}/pub/ping`);
  expect(r.headers.get("vary")).toBe("Origin");
});
