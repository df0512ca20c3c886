import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, init, initOk } from "./helpers.ts";

let k: Kbqa;
let a: Org;
let b: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  corpusId = await corpus(a);
});
afterAll(() => k.stop());

describe("POST /v1/doc/init", () => {
  test("returns the AWAITING_UPLOAD document, a presigned single-use URL and its expiry; unset counters are omitted", async () => {
    const before = Date.now();
    const r = await init(a, {
      corpusId, filename: "Report Q3.pdf", contentType: "application/pdf", metadata: { team: "x" }, tags: [" b ", "a", "b", "", "  "],
      chunk: { strategy: "basic", bogus_key: 1 }, provider: "drive", userId: "uploader-7", lang: "fr", docCreate: "2024-01-02T03:04:05Z",
    });
    expect(r.status).toBe(200);
    expect(r.body.document).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      corpusId,
      filename: "Report Q3.pdf",
      contentType: "application/pdf",
      status: "AWAITING_UPLOAD",
      nbPages: 0,
      userId: "uploader-7",
      provider: "drive",
      lang: "fr",
      metadata: { team: "x" },
      tags: ["b", "a"],
      chunk: { strategy: "basic", bogus_key: 1 },
      docCreate: "2024-01-02T03:04:05.000Z",
      createdAt: r.body.document.createdAt,
      updatedAt: r.body.document.createdAt,
    });
    const u = new URL(r.body.uploadUrl);
    expect(u.origin).toBe(k.url);
    expect(u.pathname).toBe(`/storage/orgs/${a.orgId}/docs/${r.body.document.id}/original`);
    expect(u.searchParams.get("X-Kbqa-Content-Type")).toBe("application/pdf");
    const ttl = Date.parse(r.body.expiresAt) - before;
    expect(ttl).toBeGreaterThan(14 * 60_000); // default lifetime 15 minutes
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 2000);
    expect((await a.api("GET", `/v1/doc/${r.body.document.id}`)).body).toEqual(r.body.document);
  });

  test("userId defaults to the caller, tags to [], chunk stays absent", async () => {
    const r = await initOk(a, { corpusId });
    expect(r.document.userId).toBe("user-1");
    expect(r.document.tags).toEqual([]);
    expect("chunk" in r.document).toBe(false);
    expect("size" in r.document || "tokens" in r.document || "nbWords" in r.document).toBe(false);
  });

  test("a corpus of another organization, unknown or deleted answers 404", async () => {
    const foreign = await corpus(b);
    expect((await init(a, { corpusId: foreign })).status).toBe(404);
    expect((await init(a, { corpusId: crypto.randomUUID() })).status).toBe(404);
    const gone = await corpus(a, "gone");
    await a.api("DELETE", `/v1/corpus/${gone}`);
    const r = await init(a, { corpusId: gone });
    expect(r.status).toBe(404);
    expect(r.body.message).toContain("Corpus");
  });

  test("a content type outside GET /v1/doc/accept answers 415; parameters and case of an accepted type are fine", async () => {
    const accepted = (await a.api("GET", "/v1/doc/accept")).body.items.map((x: { contentType: string }) => x.contentType);
    expect(accepted).toContain("application/pdf");
    expect(accepted).toContain("text/plain");
    for (const ct of ["image/png", "application/zip", "text/x-python", "application/octet-stream"]) {
      const r = await init(a, { corpusId, contentType: ct });
      expect({ ct, status: r.status }).toEqual({ ct, status: 415 });
      expect(r.body.message).toContain("/v1/doc/accept");
    }
    expect((await init(a, { corpusId, contentType: "text/plain; charset=utf-8" })).status).toBe(200);
    expect((await init(a, { corpusId, contentType: "Application/PDF" })).status).toBe(200);
  });

  test("tags: at most 32 after dropping blanks and collapsing duplicates, each at most 64 characters", async () => {
    const t32 = Array.from({ length: 32 }, (_, i) => `t${i}`);
    expect((await init(a, { corpusId, tags: [...t32, "t0", " ", ""] })).body.document.tags).toEqual(t32);
    const over = await init(a, { corpusId, tags: [...t32, "t32"] });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain("'tags'");
    expect((await init(a, { corpusId, tags: ["x".repeat(64)] })).status).toBe(200);
    const long = await init(a, { corpusId, tags: ["x".repeat(65)] });
    expect(long.status).toBe(400);
    expect(long.body.message).toContain("64");
    expect((await init(a, { corpusId, tags: "a" })).status).toBe(400);
  });

  test("validation errors are 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ corpusId: undefined }, "corpusId"],
      [{ corpusId: "nope" }, "corpusId"],
      [{ corpusId, filename: "" }, "filename"],
      [{ corpusId, filename: "x".repeat(1025) }, "filename"],
      [{ corpusId, filename: 5 }, "filename"],
      [{ corpusId, contentType: "" }, "contentType"],
      [{ corpusId, metadata: [1] }, "metadata"],
      [{ corpusId, chunk: [1] }, "chunk"],
      [{ corpusId, docCreate: "yesterday" }, "docCreate"],
      [{ corpusId, docUpdate: "2024-13-45" }, "docUpdate"],
    ];
    for (const [body, field] of cases) {
      const r = await init(a, body);
      expect({ field, status: r.status, names: String(r.body.message).includes(field) }).toEqual({ field, status: 400, names: true });
      expect(Object.keys(r.body).sort()).toEqual(["error", "message", "path", "status", "timestamp"]);
    }
    expect((await a.api("POST", "/v1/doc/init", "{bad json", { "content-type": "application/json", authorization: `Bearer ${await a.jwt()}` })).status).toBe(400);
  });

  test("credentials and scope: none → 403; doc:create is enough to init", async () => {
    expect((await k.request("POST", "/v1/doc/init", { corpusId, filename: "a", contentType: "text/plain" })).status).toBe(403);
    const t = (await a.api("POST", "/v1/auth/access-token", { scope: ["doc:create", "doc:read"] })).body.token;
    const r = await k.request("POST", "/v1/doc/init", { corpusId, filename: "a", contentType: "text/plain" }, { "x-access-token": t });
    expect(r.status).toBe(200);
    const ro = (await a.api("POST", "/v1/auth/access-token", { scope: ["doc:read"] })).body.token;
    expect((await k.request("POST", "/v1/doc/init", { corpusId, filename: "a", contentType: "text/plain" }, { "x-access-token": ro })).status).toBe(403);
  });
});
