// Bun builds request.url from the Host header as sent; a Host that is no authority made every
// route parsing the URL answer 500 (upload and download URLs, listings, the storage route).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { rawRequest } from "../storage/raw.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

// "evil.com/x" parsed as a URL with its path dropped, so upload URLs went to http://evil.com.
test.each(["a b", "%", "x:99999", "bad_host!", "evil.com/x", "a@b", "host:", "-lead.example"])("Host %p → 400 with the error object, on the API and on the storage route", async (host) => {
  const auth = { authorization: `Bearer ${await org.jwt()}` };
  for (const [method, target] of [["GET", "/v1/doc/q?corpusId=00000000-0000-4000-8000-000000000000"], ["POST", "/v1/doc/init"], ["GET", "/storage/orgs/x/original?X-Kbqa-Expires=1"]] as const) {
    const r = await rawRequest(k.url, method, target, { ...auth, host, "content-type": "application/json" }, method === "POST" ? "{}" : "");
    expect({ target, status: r.status }).toEqual({ target, status: 400 });
    expect(JSON.parse(r.text)).toEqual({
      timestamp: expect.any(String), status: 400, error: "Bad Request",
      message: `Invalid Host header "${host}": not a host name or address with an optional port`, path: target.split("?")[0],
    });
  }
  expect(k.stderr()).not.toContain("unhandled error");
});

test("host names (short ones and Docker's with underscores), IPv4 and IPv6 addresses, with or without a port, are served", async () => {
  for (const host of ["api", "my_app_1", "kb.example.com", "kb.example.com.", "127.0.0.1:8080", "[::1]:8080", "[::1]", "KB.Example.COM:443"]) {
    const r = await rawRequest(k.url, "GET", "/pub/ping", { host });
    expect({ host, status: r.status }).toEqual({ host, status: 200 });
  }
});
