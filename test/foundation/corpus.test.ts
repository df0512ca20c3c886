import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let a: Org;
let b: Org;
beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
});
afterAll(() => k.stop());

describe("corpora", () => {
  test("create, get, patch (omitted fields kept), deprecated PUT, delete with acknowledgement", async () => {
    const c = await a.api("POST", "/v1/corpus/", { name: "Handbook", description: "HR", metadata: { team: "hr" }, unknownField: 1 });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Handbook",
      description: "HR",
      metadata: { team: "hr" },
      createdAt: c.body.createdAt,
      updatedAt: c.body.createdAt,
    });
    const p = await a.api("PATCH", `/v1/corpus/${c.body.id}`, { description: "People" });
    expect(p.body).toMatchObject({ name: "Handbook", description: "People", metadata: { team: "hr" } });
    expect(Date.parse(p.body.updatedAt)).toBeGreaterThan(Date.parse(c.body.updatedAt));
    const put = await a.api("PUT", `/v1/corpus/${c.body.id}`, { metadata: {} });
    expect(put.body).toMatchObject({ name: "Handbook", description: "People", metadata: {} });
    const d = await a.api("DELETE", `/v1/corpus/${c.body.id}`);
    expect(d.status).toBe(200);
    expect(Object.keys(d.body).sort()).toEqual(["message", "timestamp"]);
    expect((await a.api("GET", `/v1/corpus/${c.body.id}`)).status).toBe(404);
    expect((await a.api("DELETE", `/v1/corpus/${c.body.id}`)).status).toBe(404);
  });

  test("two organizations cannot see each other's corpora", async () => {
    const c = await a.api("POST", "/v1/corpus/", { name: "secret" });
    for (const [m, body] of [["GET", undefined], ["PATCH", { name: "x" }], ["PUT", { name: "x" }], ["DELETE", undefined]] as const) {
      const r = await b.api(m, `/v1/corpus/${c.body.id}`, body);
      expect(r.status).toBe(404);
    }
    const list = await b.api("GET", "/v1/corpus/?pageSize=100");
    expect(list.body.items.map((x: { id: string }) => x.id)).not.toContain(c.body.id);
    expect((await a.api("GET", `/v1/corpus/${c.body.id}`)).body.name).toBe("secret");
  });

  test("validation answers 400 naming the field", async () => {
    const cases: [string, string, unknown, string][] = [
      ["POST", "/v1/corpus/", {}, "name"],
      ["POST", "/v1/corpus/", { name: "" }, "name"],
      ["POST", "/v1/corpus/", { name: 5 }, "name"],
      ["POST", "/v1/corpus/", { name: "x", metadata: [1] }, "metadata"],
      ["GET", "/v1/corpus/?pageSize=0", undefined, "pageSize"],
      ["GET", "/v1/corpus/?pageSize=101", undefined, "pageSize"],
      ["GET", "/v1/corpus/?pageIndex=-1", undefined, "pageIndex"],
      ["GET", "/v1/corpus/?pageSize=abc", undefined, "pageSize"],
      ["GET", "/v1/corpus/not-a-uuid", undefined, "corpusId"],
    ];
    for (const [m, path, body, field] of cases) {
      const r = await a.api(m, path, body);
      expect({ path, status: r.status }).toEqual({ path, status: 400 });
      expect(r.body.message).toContain(field);
      expect(r.body.path).toBe(path.split("?")[0]);
    }
    const bad = await a.api("POST", "/v1/corpus/", "{not json");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("JSON");
  });

  test("pagination: newest first, stable, total", async () => {
    const o = await k.org("pager");
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await o.api("POST", "/v1/corpus/", { name: `c${i}` })).body.id);
    const seen: string[] = [];
    for (let p = 0; p < 4; p++) {
      const r = await o.api("GET", `/v1/corpus/?pageSize=2&pageIndex=${p}`);
      expect(r.body).toMatchObject({ pageIndex: p, pageSize: 2, total: 7 });
      seen.push(...r.body.items.map((x: { id: string }) => x.id));
    }
    expect(seen).toEqual([...ids].reverse());
    expect((await o.api("GET", "/v1/corpus/")).body.pageSize).toBe(25);
  });

  test("unknown routes answer 404 with the error object; ping needs no credential", async () => {
    const r = await a.api("GET", "/v1/nothing-here");
    expect(r.status).toBe(404);
    expect(r.body.status).toBe(404);
    const ping = await k.request("GET", "/pub/ping");
    expect(ping.status).toBe(200);
    expect(ping.body.status).toBe("ok");
  });

  test("OpenAPI document is served, hides deprecated operations, and the docs page renders", async () => {
    const doc = await k.request("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toStartWith("3.1");
    const corpusOps = doc.body.paths["/v1/corpus/{corpusId}"];
    expect(Object.keys(corpusOps).sort()).toEqual(["delete", "get", "patch"]);
    expect(doc.body.paths["/v1/corpus/"].post.requestBody).toBeDefined();
    const page = await fetch(k.url + "/docs");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("openapi.json");
    // Every script and stylesheet of the page comes from this server: it must work offline.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.filter((a) => /^(https?:)?\/\//.test(a))).toEqual([]);
    expect(assets).toEqual(expect.arrayContaining(["/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"]));
    for (const a of ["/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"]) {
      const r = await fetch(k.url + a);
      expect([a, r.status, (await r.arrayBuffer()).byteLength > 10_000]).toEqual([a, 200, true]);
    }
    // The page loads "openapi.json" relative to itself: under /docs/ that was a 404 and an error page.
    const slash = await fetch(k.url + "/docs/", { redirect: "manual" });
    expect([slash.status, slash.headers.get("location")]).toEqual([301, "/docs"]);
  });
});
