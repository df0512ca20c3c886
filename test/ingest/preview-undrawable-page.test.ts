// A page pdf.js cannot draw is that page's problem only: before, the error ended the document's
// rendering, so every page after it stayed without tiles and their URLs answered 404 for good.
import { expect, test } from "bun:test";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { pdfWithUndrawablePages } from "./undrawable-page-pdf.ts";

test("a 4-page PDF whose page 1 cannot be drawn gets tiles for pages 0, 2 and 3; page 1's answer 404", async () => {
  await using k = await startKbqa();
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const id = await ingestDocument(k, org, corpusId, "manual.pdf", await pdfWithUndrawablePages(4, [1]), "application/pdf");

  const urls = await org.api("GET", `/v1/doc/${id}/preview-urls?pages=0,1,2,3`);
  expect(urls.status).toBe(200);
  const statuses = async () => {
    const out: Record<string, number> = {};
    for (const item of urls.body.items as { page: number; size: string; url: string }[]) {
      const res = await fetch(item.url.startsWith("http") ? item.url : k.url + item.url);
      await res.arrayBuffer();
      out[`${item.page}-${item.size}`] = res.status;
    }
    return out;
  };
  const logLines = () => k.stderr().split("\n").filter((l) => l.includes(id));
  // The old code logged the failure and stopped: waiting for it as well ends the wait at once.
  await waitFor(async () => (await statuses())["3-MEDIUM"] === 200 || logLines().some((l) => l.includes('"preview rendering failed"')), "page 3's tile, or the rendering's end", 60_000);

  expect(await statuses()).toEqual({
    "0-SMALL": 200, "0-MEDIUM": 200, "1-SMALL": 404, "1-MEDIUM": 404, "2-SMALL": 200, "2-MEDIUM": 200, "3-SMALL": 200, "3-MEDIUM": 200,
  });
  const skipped = logLines().filter((l) => l.includes('"preview page not rendered"')).map((l) => JSON.parse(l));
  expect(skipped).toEqual([expect.objectContaining({ documentId: id, page: 1, reason: expect.stringContaining("out of range") })]);
  expect(logLines().some((l) => l.includes('"preview rendering failed"'))).toBe(false);
  expect((await org.api("GET", `/v1/doc/${id}/status`)).body.status).toBe("READY");
}, 120_000);
