// Previews are the least needed writes on the data volume: with less free space than
// --preview-reserve-bytes left, no tile is written (the reserve stays for ingestion and the
// database), the cut is logged, tiles answer 404 and the document is READY all the same.
import { expect, test } from "bun:test";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { textPdf } from "../convert/fixtures.ts";

test("a reserve larger than the free space: no tile written, 'previews cut' with reason disk, READY", async () => {
  await using k = await startKbqa({ flags: ["--preview-reserve-bytes", String(2 ** 50)] }); // 1 PiB: more than any test disk has
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const id = await ingestDocument(k, org, corpusId, "two.pdf", await textPdf(2), "application/pdf");
  const line = await waitFor(() => k.stderr().split("\n").find((l) => l.includes('"previews cut"') && l.includes(id)), "the cut logged", 60_000);
  expect(JSON.parse(line)).toMatchObject({ documentId: id, reason: "disk", pagesWritten: 0, bytes: 0, nbPages: 2 });
  const urls = await org.api("GET", `/v1/doc/${id}/preview-urls?pages=0,1`);
  expect(urls.status).toBe(200);
  const statuses = await Promise.all(urls.body.items.map(async (i: { url: string }) => (await fetch(i.url.startsWith("http") ? i.url : k.url + i.url)).status));
  expect(statuses).toEqual([404, 404, 404, 404]);
  expect((await org.api("GET", `/v1/doc/${id}/status`)).body.status).toBe("READY");
}, 90_000);
