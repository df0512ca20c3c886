// A tile of a page pdf.js could not draw never comes: its 404 says so, instead of the
// "not rendered yet" that has a client poll for it. Still S3's NoSuchKey, still 404.
import { expect, test } from "bun:test";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { pdfWithUndrawablePages } from "../ingest/undrawable-page-pdf.ts";

test("the tiles of a page that could not be drawn answer 404 NoSuchKey saying the page could not be rendered", async () => {
  await using k = await startKbqa();
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const id = await ingestDocument(k, org, corpusId, "manual.pdf", await pdfWithUndrawablePages(3, [1]), "application/pdf");
  const urls = await org.api("GET", `/v1/doc/${id}/preview-urls?pages=1,2`);
  expect(urls.status).toBe(200);
  const url = (page: number, size: string) => {
    const u = (urls.body.items as { page: number; size: string; url: string }[]).find((i) => i.page === page && i.size === size)!.url;
    return u.startsWith("http") ? u : k.url + u;
  };
  // Page 2 is drawn after page 1 was given up; the marker and page 2's tiles are written side by
  // side, so page 1's answer is polled too (the assertions below then show what it was).
  await waitFor(async () => (await fetch(url(2, "SMALL"))).status === 200, "page 2's tile", 60_000);
  await waitFor(async () => (await fetch(url(1, "SMALL")).then((r) => r.text())).includes("could not be rendered"), "page 1's final 404", 10_000).catch(() => {});

  const xml = await fetch(url(1, "SMALL"));
  const body = await xml.text();
  expect([xml.status, xml.headers.get("content-type")]).toEqual([404, "application/xml"]);
  expect(body).toContain("<Code>NoSuchKey</Code>");
  expect(body).toMatch(/<Message>[^<]*could not be rendered[^<]*<\/Message>/);

  const json = await fetch(url(1, "MEDIUM"), { headers: { accept: "application/json" } });
  expect(json.status).toBe(404);
  expect(await json.json()).toMatchObject({ status: 404, code: "NoSuchKey", message: expect.stringContaining("could not be rendered") });
}, 120_000);
