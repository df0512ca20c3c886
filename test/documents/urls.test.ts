import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put, sql, upload } from "./helpers.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
});
afterAll(() => k.stop());

/**
 * A PDF whose bytes are uploaded but not committed: it has content (so preview URLs are given) and
 * its pages are not counted yet (so any page within the preview limit is accepted).
 */
async function uploadedPdf(): Promise<string> {
  const i = await initOk(a, { corpusId, contentType: "application/pdf", filename: "uncounted.pdf" });
  const p = await put(i.uploadUrl, "%PDF-1.4\n%%EOF\n", "application/pdf");
  if (p.status !== 200) throw new Error(`put: ${p.status} ${p.text}`);
  return i.document.id;
}

/** Identical answers from both paths, up to the signature's second (URLs differ only if the second ticked). */
const sameShape = (x: any, y: any) => expect({ ...x, url: undefined, items: x.items?.length, expiresAt: undefined }).toEqual({ ...y, url: undefined, items: y.items?.length, expiresAt: undefined });

describe("download and preview URLs", () => {
  test("download-url: a short-lived GET serving the original with its content type; the alias answers the same", async () => {
    const text = `download me ${crypto.randomUUID()}`;
    const { init } = await upload(a, corpusId, text, { contentType: "text/markdown", filename: "x.md" });
    const id = init.document.id;
    const d = await a.api("GET", `/v1/doc/${id}/download-url`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ documentId: id, filename: "x.md", contentType: "text/markdown", url: expect.stringContaining(`/storage/orgs/${a.orgId}/docs/${id}/original?`), expiresAt: expect.any(String) });
    const ttl = Date.parse(d.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(290_000); // default --download-url-ttl 300 s
    expect(ttl).toBeLessThanOrEqual(301_000);
    const got = await fetch(d.body.url);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("text/markdown");
    expect(await got.text()).toBe(text);
    const alias = await a.api("GET", `/v1/post/attachment/${id}/download-url`);
    expect(alias.status).toBe(200);
    sameShape(alias.body, d.body);
    expect(await (await fetch(alias.body.url)).text()).toBe(text);
  });

  test("download-url before any upload → 409", async () => {
    const i = await initOk(a, { corpusId });
    expect((await a.api("GET", `/v1/doc/${i.document.id}/download-url`)).status).toBe(409);
  });

  test("preview-urls: SMALL and MEDIUM per page, repeated or comma-separated, duplicates once; alias identical", async () => {
    const id = await uploadedPdf();
    const r = await a.api("GET", `/v1/doc/${id}/preview-urls?pages=0,2&pages=1&pages=2`);
    expect(r.status).toBe(200);
    expect(r.body.documentId).toBe(id);
    expect(r.body.items.map((x: { page: number; size: string }) => `${x.page}-${x.size}`)).toEqual(["0-SMALL", "0-MEDIUM", "2-SMALL", "2-MEDIUM", "1-SMALL", "1-MEDIUM"]);
    for (const x of r.body.items) expect(new URL(x.url).pathname).toBe(`/storage/orgs/${a.orgId}/docs/${id}/g0/preview/${x.page}-${x.size}.png`);
    const alias = await a.api("GET", `/v1/post/attachment/${id}/preview-urls?pages=0,2&pages=1&pages=2`);
    expect(alias.status).toBe(200);
    sameShape(alias.body, r.body);
    // Ten pages: at most 20 URLs.
    const ten = await a.api("GET", `/v1/doc/${id}/preview-urls?pages=0,1,2,3,4,5,6,7,8,9`);
    expect(ten.body.items).toHaveLength(20);
  });

  test("preview pages: missing, empty, over 10, negative, not a number, at or above nbPages → 400 on both paths", async () => {
    const id = await uploadedPdf();
    sql(k, "UPDATE documents SET nb_pages = 3 WHERE id = ?", id);
    const bad = ["", "?pages=", "?pages=0,1,2,3,4,5,6,7,8,9,10", "?pages=-1", "?pages=a", "?pages=3", "?pages=0&pages=99", "?pages=1.5",
      // Values are counted as sent: eleven copies of one page are eleven values. An empty value among others is not skipped.
      "?pages=0,0,0,0,0,0,0,0,0,0,0", "?pages=0,,1", "?pages=1e0", "?pages=0x1"];
    for (const q of bad) {
      for (const base of [`/v1/doc/${id}/preview-urls`, `/v1/post/attachment/${id}/preview-urls`]) {
        const r = await a.api("GET", base + q);
        expect({ q, base, status: r.status, named: String(r.body.message).includes("pages") }).toEqual({ q, base, status: 400, named: true });
      }
    }
    expect((await a.api("GET", `/v1/doc/${id}/preview-urls?pages=2`)).status).toBe(200);
  });

  test("a READY document without pages (text) has no previews: any page → 400 saying so, on both paths", async () => {
    const { init } = await upload(a, corpusId, `no pages ${crypto.randomUUID()}`);
    const id = init.document.id;
    await waitFor(async () => (await a.api("GET", `/v1/doc/${id}/status`)).body.status === "READY", "READY");
    for (const base of [`/v1/doc/${id}/preview-urls`, `/v1/post/attachment/${id}/preview-urls`]) {
      const r = await a.api("GET", `${base}?pages=0`);
      expect([r.status, r.body.message]).toEqual([400, "Invalid query parameter 'pages': this document has no pages to preview"]);
    }
  });

  test("scopes: doc paths need doc:read, alias paths need post:read", async () => {
    const { init } = await upload(a, corpusId, `scoped ${crypto.randomUUID()}`);
    const id = init.document.id;
    const mint = async (scope: string[]) => (await a.api("POST", "/v1/auth/access-token", { scope })).body.token as string;
    const doc = await mint(["doc:read"]);
    const post = await mint(["post:read"]);
    const get = (path: string, token: string) => k.request("GET", path, undefined, { "x-access-token": token });
    expect((await get(`/v1/doc/${id}/download-url`, doc)).status).toBe(200);
    expect((await get(`/v1/doc/${id}/download-url`, post)).status).toBe(403);
    expect((await get(`/v1/post/attachment/${id}/download-url`, post)).status).toBe(200);
    expect((await get(`/v1/post/attachment/${id}/download-url`, doc)).status).toBe(403);
    // Previews of a document whose pages are not counted yet (a text document, once READY, has none).
    const pdf = await uploadedPdf();
    expect((await get(`/v1/post/attachment/${pdf}/preview-urls?pages=0`, post)).status).toBe(200);
    expect((await get(`/v1/doc/${pdf}/preview-urls?pages=0`, post)).status).toBe(403);
  });

  test("an expired download URL → 403 (--download-url-ttl 1)", async () => {
    await using s = await startKbqa({ flags: ["--download-url-ttl", "1"] });
    const o = await s.org();
    const { init } = await upload(o, await corpus(o), "short-lived");
    const d = await o.api("GET", `/v1/doc/${init.document.id}/download-url`);
    await waitFor(() => Date.now() > Date.parse(d.body.expiresAt), "expiresAt to pass", 5000, 50);
    const r = await fetch(d.body.url);
    expect(r.status).toBe(403);
    expect(await r.text()).toContain("<Code>AccessDenied</Code>");
  });
});
