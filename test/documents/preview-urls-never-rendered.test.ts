import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textPdf } from "../convert/fixtures.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, errorShape, initOk, put } from "./helpers.ts";

// preview-urls handed out URLs that could only ever answer 404:
// - for pages past --preview-max-pages of a PDF (rendering stops there; the log says "previews cut …
//   reason pages"): a 2000-page PDF answered 200 for pages=1999 under the default limit of 500;
// - for a document nothing had been uploaded for, while download-url on it answers 409.
// Both now answer like the other refusals, identically on the document path and its attachment alias.

const MAX_PAGES = 3;

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  // A small limit: a 5-page PDF is "longer than the preview limit" in a second instead of minutes.
  k = await startKbqa({ flags: ["--preview-max-pages", String(MAX_PAGES), "--workers", "1"] });
  a = await k.org();
  corpusId = await corpus(a, "previews");
}, 60_000);
afterAll(() => k?.stop());

const paths = (id: string) => [`/v1/doc/${id}/preview-urls`, `/v1/post/attachment/${id}/preview-urls`];
/** Status and whole error body, the per-request parts (time, path) as any string. */
const refusal = async (path: string) => {
  const r = await a.api("GET", path);
  return { status: r.status, body: r.body };
};
const refused = (status: number, message: string) => ({ status, body: { ...errorShape(status), message } });

describe("preview pages that will never be rendered → 400 naming the limit", () => {
  test("a 5-page PDF under --preview-max-pages 3: pages 0-2 get URLs, pages 3 and 4 are refused on both paths", async () => {
    const id = await ingestDocument(k, a, corpusId, "five-pages.pdf", await textPdf(5), "application/pdf");
    expect((await a.api("GET", `/v1/doc/${id}`)).body).toMatchObject({ status: "READY", nbPages: 5 });
    // The renderer agrees: it stops after the third page and says why.
    const cut = await waitFor(() => k.stderr().split("\n").find((l) => l.includes('"previews cut"') && l.includes(id)), "previews cut logged", 60_000);
    expect(JSON.parse(cut)).toMatchObject({ documentId: id, reason: "pages", pagesWritten: MAX_PAGES, nbPages: 5 });

    const message = "Invalid query parameter 'pages': 3 is past the preview limit; previews are rendered for the first 3 pages only (0 to 2, --preview-max-pages)";
    for (const base of paths(id)) {
      const ok = await a.api("GET", `${base}?pages=0,2`);
      expect({ base, status: ok.status, pages: ok.body.items.map((x: { page: number }) => x.page) }).toEqual({ base, status: 200, pages: [0, 0, 2, 2] });
      expect({ base, ...(await refusal(`${base}?pages=3`)) }).toEqual({ base, ...refused(400, message) });
      // one page past the limit among pages within it refuses the request, naming the first such page
      expect({ base, ...(await refusal(`${base}?pages=0,4,3`)) }).toEqual({ base, ...refused(400, message.replace("'pages': 3", "'pages': 4")) });
      // at or above nbPages keeps its own, earlier answer
      expect((await refusal(`${base}?pages=5`)).body.message).toBe("Invalid query parameter 'pages': 5 is out of range; the document has 5 pages (0 to 4)");
    }
    // and the tiles within the limit really come
    const urls = (await a.api("GET", `/v1/doc/${id}/preview-urls?pages=2`)).body.items as { url: string }[];
    expect(await Promise.all(urls.map(async (u) => (await fetch(u.url)).status))).toEqual([200, 200]);
  }, 120_000);

  test("a PDF whose pages are not counted yet: a page past the limit is already known never to be rendered", async () => {
    const i = await initOk(a, { corpusId, contentType: "application/pdf", filename: "uncounted.pdf" });
    expect((await put(i.uploadUrl, "%PDF-1.4\n%%EOF\n", "application/pdf")).status).toBe(200);
    for (const base of paths(i.document.id)) {
      expect((await a.api("GET", `${base}?pages=2`)).status).toBe(200);
      expect((await refusal(`${base}?pages=1999`)).status).toBe(400);
    }
  });

  test("one page, in the words: a 1-page PDF and --preview-max-pages 1 say \"1 page (0)\" and \"the first page\", not \"1 pages (0 to 0)\"", async () => {
    const id = await ingestDocument(k, a, corpusId, "one-page.pdf", await textPdf(1), "application/pdf");
    expect((await a.api("GET", `/v1/doc/${id}`)).body).toMatchObject({ status: "READY", nbPages: 1 });
    for (const base of paths(id)) {
      expect({ base, ...(await refusal(`${base}?pages=1`)) }).toEqual({ base, ...refused(400, "Invalid query parameter 'pages': 1 is out of range; the document has 1 page (0)") });
    }
    await using s = await startKbqa({ flags: ["--preview-max-pages", "1"] });
    const o = await s.org();
    const i = await initOk(o, { corpusId: await corpus(o), contentType: "application/pdf", filename: "uncounted.pdf" });
    expect((await put(i.uploadUrl, "%PDF-1.4\n%%EOF\n", "application/pdf")).status).toBe(200);
    for (const base of paths(i.document.id)) {
      expect((await o.api("GET", `${base}?pages=0`)).status).toBe(200);
      const r = await o.api("GET", `${base}?pages=1`);
      expect([base, r.status, r.body.message]).toEqual([
        base,
        400,
        "Invalid query parameter 'pages': 1 is past the preview limit; previews are rendered for the first page only (0, --preview-max-pages)",
      ]);
    }
  }, 120_000);

  test("--preview-max-pages 0: every page is refused, saying previews are off", async () => {
    await using s = await startKbqa({ flags: ["--preview-max-pages", "0"] });
    const o = await s.org();
    const i = await initOk(o, { corpusId: await corpus(o), contentType: "application/pdf", filename: "no-previews.pdf" });
    expect((await put(i.uploadUrl, "%PDF-1.4\n%%EOF\n", "application/pdf")).status).toBe(200);
    const r = await o.api("GET", `/v1/doc/${i.document.id}/preview-urls?pages=0`);
    expect([r.status, r.body.message]).toEqual([400, "Invalid query parameter 'pages': previews are turned off on this server (--preview-max-pages 0)"]);
  }, 60_000);
});

describe("preview-urls of a document nothing has been uploaded for → download-url's 409", () => {
  test("text/plain and PDF in AWAITING_UPLOAD: 409 with download-url's message on every path", async () => {
    for (const contentType of ["text/plain", "application/pdf"]) {
      const id = (await initOk(a, { corpusId, contentType, filename: `awaiting.${contentType === "text/plain" ? "txt" : "pdf"}` })).document.id;
      expect((await a.api("GET", `/v1/doc/${id}`)).body.status).toBe("AWAITING_UPLOAD");
      const download = await refusal(`/v1/doc/${id}/download-url`);
      expect(download).toEqual(refused(409, "Nothing has been uploaded for this document yet"));
      for (const base of paths(id)) {
        expect({ contentType, base, ...(await refusal(`${base}?pages=0`)) }).toEqual({ contentType, base, ...refused(409, download.body.message) });
      }
      // a malformed `pages` is still the 400 it always was
      expect((await refusal(`/v1/doc/${id}/preview-urls?pages=-1`)).status).toBe(400);
    }
  });

  test("a text document with content but not READY yet is known to have no pages: 400, not URLs", async () => {
    const i = await initOk(a, { corpusId, contentType: "text/plain", filename: "uploaded-not-committed.txt" });
    expect((await put(i.uploadUrl, "some plain text", "text/plain")).status).toBe(200);
    for (const base of paths(i.document.id)) {
      expect({ base, ...(await refusal(`${base}?pages=0`)) }).toEqual({ base, ...refused(400, "Invalid query parameter 'pages': this document has no pages to preview") });
    }
  });
});
