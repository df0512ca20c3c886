import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { startKbqa, type Kbqa } from "../helpers/server.ts";

// Browsers are the spec's named client of access tokens, and the widget lives on other sites:
// they need CORS answers on the API and on presigned storage URLs, error answers included.
const preflight = (k: Kbqa, path: string, origin: string, method = "POST") =>
  fetch(`${k.url}${path}`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": "x-access-token, content-type" },
  });

describe("default: any origin", () => {
  let k: Kbqa;
  beforeAll(async () => (k = await startKbqa()));
  afterAll(() => k.stop());

  test("a preflight is answered 204 with the methods and credential headers the API uses", async () => {
    for (const path of ["/v1/corpus/", "/v1/webhook/widget/q", "/storage/orgs/x/docs/y/original"]) {
      const r = await preflight(k, path, "https://site.example", "PUT");
      expect({
        path,
        status: r.status,
        origin: r.headers.get("access-control-allow-origin"),
        methods: r.headers.get("access-control-allow-methods"),
        headers: r.headers.get("access-control-allow-headers"),
      }).toEqual({
        path,
        status: 204,
        origin: "*",
        methods: "GET, POST, PUT, PATCH, DELETE",
        headers: "Authorization, X-Access-Token, Content-Type, Accept, Last-Event-ID",
      });
    }
  });

  test("answers, errors included, carry the origin header and expose the storage checksum", async () => {
    const ok = await fetch(`${k.url}/pub/ping`, { headers: { origin: "https://site.example" } });
    const refused = await fetch(`${k.url}/v1/corpus/`, { headers: { origin: "https://site.example" } });
    expect([ok.status, ok.headers.get("access-control-allow-origin")]).toEqual([200, "*"]);
    expect([refused.status, refused.headers.get("access-control-allow-origin")]).toEqual([403, "*"]);
    expect(refused.headers.get("access-control-expose-headers")).toContain("ETag");
    // Without an Origin header (not a browser) nothing is added.
    expect((await fetch(`${k.url}/pub/ping`)).headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("--cors-origins with a list, and none", () => {
  let listed: Kbqa;
  let off: Kbqa;
  beforeAll(async () => {
    [listed, off] = await Promise.all([
      startKbqa({ flags: ["--cors-origins", "https://a.example, https://b.example"] }),
      startKbqa({ flags: ["--cors-origins", "none"] }),
    ]);
  });
  afterAll(async () => {
    await listed.stop();
    await off.stop();
  });

  test("a listed origin is echoed with Vary: Origin; another gets no grant", async () => {
    const yes = await preflight(listed, "/v1/corpus/", "https://b.example");
    expect([yes.status, yes.headers.get("access-control-allow-origin"), yes.headers.get("vary")]).toEqual([204, "https://b.example", "Origin"]);
    const no = await fetch(`${listed.url}/pub/ping`, { headers: { origin: "https://evil.example" } });
    expect([no.status, no.headers.get("access-control-allow-origin"), no.headers.get("vary")]).toEqual([200, null, "Origin"]);
  });

  test("none adds nothing, and a preflight is just an unknown route (403: it carries no credential)", async () => {
    const r = await preflight(off, "/v1/corpus/", "https://a.example");
    expect([r.status, r.headers.get("access-control-allow-origin")]).toEqual([403, null]);
  });
});

test("--cors-origins refuses anything but *, none or a list of http(s) origins, naming the flag", () => {
  for (const bad of ["a.example", "https://a.example,", "ftp://a.example", "*, https://a.example"]) {
    expect(() => loadConfig({ "cors-origins": bad }, {})).toThrow(ConfigError);
    expect(() => loadConfig({}, { KBQA_CORS_ORIGINS: bad })).toThrow(/--cors-origins \(KBQA_CORS_ORIGINS\)/);
  }
  expect(loadConfig({}, {}).corsOrigins).toBe("*");
  expect(loadConfig({ "cors-origins": "https://a.example, http://b.example:8080" }, {}).corsOrigins).toBe("https://a.example, http://b.example:8080");
});
