import { afterAll, beforeAll, expect, test } from "bun:test";
import { API_BODY_MAX } from "../../src/http/body-limit.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// Request bodies: who is told what, in which order, and oversized bodies answered with an
// explanation rather than Bun's bare 413. The upload limit is tiny to show the API's limit is
// its own.
let k: Kbqa;
let org: Org;
let jwt: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--max-upload-bytes", "1000"] });
  org = await k.org("bodies");
  jwt = await org.jwt();
});
afterAll(() => k.stop());

const once = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let off = 0; off < bytes.length; off += 1 << 20) c.enqueue(bytes.subarray(off, off + (1 << 20)));
      c.close();
    },
  });
// keepalive off for bodies the server refuses unread: Bun's fetch may otherwise reuse the socket
// while the refused bytes are still in flight (curl does not), and the next request waits.
const post = (headers: Record<string, string>, body: BodyInit) =>
  fetch(`${k.url}/v1/corpus/`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body, keepalive: false });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

test("without a valid credential, or with a scope not covering the route, a malformed body answers 403, not 400", async () => {
  for (const headers of [{}, bearer("x.y.z"), bearer(await org.jwt({ scope: ["corpus:read"] }))]) {
    const r = await post(headers, "{bad");
    expect([JSON.stringify(headers).slice(0, 30), r.status]).toEqual([JSON.stringify(headers).slice(0, 30), 403]);
  }
  const r = await post(bearer(jwt), "{bad");
  expect(r.status).toBe(400);
  expect(((await r.json()) as { message: string }).message).toContain("Malformed request body");
});

test("a body declared over the API limit is refused with the error object before it is read", async () => {
  const big = JSON.stringify({ name: "x", description: "d".repeat(API_BODY_MAX) });
  const r = await post(bearer(jwt), big);
  expect(r.status).toBe(413);
  const body = (await r.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["error", "message", "path", "status", "timestamp"]);
  expect(body.message).toContain(`declares ${new TextEncoder().encode(big).length} bytes`);
});

test("a chunked body is read within the same limit: small ones work, larger ones answer 413, malformed 400", async () => {
  const ok = await post(bearer(jwt), once(new TextEncoder().encode(JSON.stringify({ name: "chunked" }))));
  expect([ok.status, ((await ok.json()) as { name: string }).name]).toEqual([200, "chunked"]);
  const bad = await post(bearer(jwt), once(new TextEncoder().encode("{bad")));
  expect(bad.status).toBe(400);
  const big = await post(bearer(jwt), once(new Uint8Array(API_BODY_MAX + 1).fill(32)));
  expect(big.status).toBe(413);
  expect(((await big.json()) as { message: string }).message).toContain(String(API_BODY_MAX));
});

test("an upload declaring far more than the maximum gets storage's own 413, with a body", async () => {
  const c = await org.api("POST", "/v1/corpus/", { name: "up" });
  const i = await org.api("POST", "/v1/doc/init", { corpusId: c.body.id, filename: "a.txt", contentType: "text/plain" });
  const r = await fetch(i.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/plain" }, body: new Uint8Array(3 << 20), keepalive: false });
  expect(r.status).toBe(413);
  expect(await r.text()).toContain("<Code>EntityTooLarge</Code>");
  // Still unused: a body within the limit goes through.
  const put = await fetch(i.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/plain" }, body: "hello" });
  expect(put.status).toBe(200);
});

test("every API body is read as JSON, whatever Content-Type says (curl -d sends a form type)", async () => {
  for (const type of ["application/x-www-form-urlencoded", "text/plain", "application/merge-patch+json"]) {
    const r = await post({ ...bearer(jwt), "content-type": type }, JSON.stringify({ name: `as ${type}` }));
    expect([type, r.status, ((await r.json()) as { name: string }).name]).toEqual([type, 200, `as ${type}`]);
  }
  const form = await post({ ...bearer(jwt), "content-type": "application/x-www-form-urlencoded" }, "name=x");
  expect(form.status).toBe(400);
  expect(((await form.json()) as { message: string }).message).toContain("Malformed request body");
});
