// One small upload must not fill the disk with previews (audit: a 12.7 MB PDF of pages sharing one
// noise image wrote 14 MB of PNG per page, unbounded). Each document's previews stop at
// --preview-max-pages pages and --preview-max-bytes bytes (here without --preview-bytes-ratio); the tiles not written answer 404 as any
// tile not generated yet does, and the document stays READY.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { textPdf } from "../convert/fixtures.ts";
import { noisePdf } from "./noise-pdf.ts";

const MAX_PAGES = 10;
const MAX_BYTES = 4 * 2 ** 20; // three of this test's noise pages (~1.2 MB each), not four

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  // Ratio 0: the fixed budget alone, whatever the size of the original.
  k = await startKbqa({ flags: ["--preview-max-pages", String(MAX_PAGES), "--preview-max-bytes", String(MAX_BYTES), "--preview-bytes-ratio", "0"] });
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "previews" })).body.id;
});
afterAll(() => k?.stop());

/** Bytes of every preview tile of a document, all generations. */
function previewBytes(docId: string): number {
  const doc = join(k.dataDir, "blobs", "orgs", org.orgId, "docs", docId);
  let n = 0;
  for (const g of readdirSync(doc).filter((d) => /^g\d+$/.test(d))) {
    const dir = join(doc, g, "preview");
    for (const f of statSync(dir, { throwIfNoEntry: false }) ? readdirSync(dir) : []) n += statSync(join(dir, f)).size;
  }
  return n;
}

const cutLogged = (docId: string) => k.stderr().split("\n").find((l) => l.includes('"previews cut"') && l.includes(docId));

async function tiles(docId: string, pages: number[]) {
  const r = await org.api("GET", `/v1/doc/${docId}/preview-urls?pages=${pages.join(",")}`);
  expect(r.status).toBe(200);
  const out: Record<string, { status: number; type: string | null; png: boolean }> = {};
  for (const item of r.body.items as { page: number; size: string; url: string }[]) {
    const res = await fetch(item.url.startsWith("http") ? item.url : k.url + item.url);
    const body = new Uint8Array(await res.arrayBuffer());
    out[`${item.page}-${item.size}`] = { status: res.status, type: res.status === 200 ? res.headers.get("content-type") : null, png: body[1] === 0x50 && body[2] === 0x4e && body[3] === 0x47 };
  }
  return out;
}

test("40 pages sharing one noise image: previews stop within the byte budget, later tiles 404, the document stays READY", async () => {
  const pdf = noisePdf(40, { imageWidth: 256, imageHeight: 1024 });
  expect(pdf.length).toBeLessThan(1_000_000);
  const id = await ingestDocument(k, org, corpusId, "noise.pdf", pdf, "application/pdf");
  const line = await waitFor(() => cutLogged(id), "the log line saying previews were cut", 90_000);
  expect(JSON.parse(line)).toMatchObject({ documentId: id, reason: "bytes", pagesWritten: 3, nbPages: 40, maxBytes: MAX_BYTES });

  const used = previewBytes(id);
  expect(used).toBeGreaterThan(2 * 2 ** 20);
  expect(used).toBeLessThanOrEqual(MAX_BYTES);
  // Page 9 is the last within --preview-max-pages: the byte budget, not the page limit, left it unrendered.
  // (Page 39 is past the page limit, so no URL is handed out for it at all.)
  const t = await tiles(id, [0, 2, 3, MAX_PAGES - 1]);
  for (const ok of ["0-SMALL", "0-MEDIUM", "2-SMALL", "2-MEDIUM"]) expect(t[ok]).toEqual({ status: 200, type: "image/png", png: true });
  for (const cut of ["3-SMALL", "3-MEDIUM", `${MAX_PAGES - 1}-SMALL`, `${MAX_PAGES - 1}-MEDIUM`]) expect(t[cut]!.status).toBe(404);
  expect((await org.api("GET", `/v1/doc/${id}/preview-urls?pages=39`)).status).toBe(400);
  expect((await org.api("GET", `/v1/doc/${id}/status`)).body.status).toBe("READY");
  expect((await org.api("GET", `/v1/doc/${id}`)).body).toMatchObject({ status: "READY", nbPages: 40 });
}, 120_000);

test("a text PDF longer than --preview-max-pages gets previews of its first pages only", async () => {
  const id = await ingestDocument(k, org, corpusId, "long.pdf", await textPdf(MAX_PAGES + 2), "application/pdf");
  const line = await waitFor(() => cutLogged(id), "the log line saying previews were cut", 60_000);
  expect(JSON.parse(line)).toMatchObject({ documentId: id, reason: "pages", pagesWritten: MAX_PAGES, nbPages: MAX_PAGES + 2 });
  const t = await tiles(id, [0, MAX_PAGES - 1]);
  expect(Object.entries(t).map(([key, v]) => [key, v.status])).toEqual([
    ["0-SMALL", 200], ["0-MEDIUM", 200], [`${MAX_PAGES - 1}-SMALL`, 200], [`${MAX_PAGES - 1}-MEDIUM`, 200],
  ]);
  // The pages past the limit are never rendered: no URL is handed out for them (test/documents/preview-urls-never-rendered.test.ts).
  const past = await org.api("GET", `/v1/doc/${id}/preview-urls?pages=${MAX_PAGES},${MAX_PAGES + 1}`);
  expect([past.status, past.body.message]).toEqual([400, expect.stringContaining(`first ${MAX_PAGES} pages only`)]);
}, 120_000);
