// A data directory written by a kbqa from before durable previews (no preview_jobs table, its
// migration not recorded) holds PDFs whose tiles stop part-way: that build rendered previews in
// memory only, so a stop, a crash or an upgrade during a rendering left the remaining pages
// without tiles, and the current build, which resumes only what preview_jobs records, never
// rendered them (their URLs answered 404 for good). Reproduced with a directory of de369f1;
// here the old state is made from a current one with SQL: the table and its migration record
// are removed and the later pages' tiles deleted, as the old build left them.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { documentKey, previewDirKey, previewKey } from "../../src/store/blob-keys.ts";
import { textPdf } from "../convert/fixtures.ts";

const PAGES = 20;

test("PDF tiles an older build left unfinished are rendered after the upgrade, from the first missing page", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  await using cleanup = { [Symbol.asyncDispose]: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const org = await first.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const id = await ingestDocument(first, org, corpusId, "manual.pdf", await textPdf(PAGES), "application/pdf");
  const gen = await waitFor(() => readdirSync(join(dataDir, "blobs", documentKey(org.orgId, id))).find((g) => /^g\d+$/.test(g)), "the tiles' folder", 60_000);
  const generation = Number(gen.slice(1));
  const tile = (page: number, size: "SMALL" | "MEDIUM") => join(dataDir, "blobs", previewKey(org.orgId, id, generation, page, size));
  const pageDone = (page: number) => existsSync(tile(page, "SMALL")) && existsSync(tile(page, "MEDIUM"));
  await waitFor(() => pageDone(PAGES - 1), "every tile before the downgrade", 90_000);
  await first.stop();

  // What the older build left: pages 0-8 whole, page 9 half written, nothing after.
  for (let p = 10; p < PAGES; p++) for (const s of ["SMALL", "MEDIUM"] as const) rmSync(tile(p, s));
  rmSync(tile(9, "MEDIUM"));
  const db = new Database(join(dataDir, "kbqa.sqlite"));
  db.run("DROP TABLE preview_jobs");
  db.run("DELETE FROM _migrations WHERE id LIKE 'ingest-previews-%'");
  db.close();
  const kept = statSync(tile(0, "MEDIUM")).mtimeMs;

  await using k = await startKbqa({ dataDir });
  await waitFor(() => pageDone(PAGES - 1), "the last page's tiles after the upgrade", 45_000);
  const missing = Array.from({ length: PAGES }, (_, p) => p).filter((p) => !pageDone(p));
  expect(missing).toEqual([]);
  // The pages the older build had finished are kept, not rendered again.
  expect(statSync(tile(0, "MEDIUM")).mtimeMs).toBe(kept);
  const urls = await k.request<any>("GET", `/v1/doc/${id}/preview-urls?pages=9,19`, undefined, { Authorization: `Bearer ${await org.jwt()}` });
  expect(urls.status).toBe(200);
  const got = await Promise.all(urls.body.items.map(async (it: { page: number; size: string; url: string }) => ({ page: it.page, size: it.size, status: (await fetch(it.url)).status })));
  expect(got).toEqual([
    { page: 9, size: "SMALL", status: 200 },
    { page: 9, size: "MEDIUM", status: 200 },
    { page: 19, size: "SMALL", status: 200 },
    { page: 19, size: "MEDIUM", status: 200 },
  ]);
  // The resumed job is finished: nothing is left to render at the next start.
  await waitFor(() => {
    const d = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
    try {
      return (d.query("SELECT count(*) AS n FROM preview_jobs").get() as { n: number }).n === 0;
    } finally {
      d.close();
    }
  }, "no preview job left");
  expect(readdirSync(join(dataDir, "blobs", previewDirKey(org.orgId, id, generation))).length).toBe(2 * PAGES);
}, 180_000);
