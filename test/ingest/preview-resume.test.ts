// Preview rendering is durable work: a server stopped (or killed) while it renders a PDF's tiles
// resumes at its next start from the last finished batch, and the document's byte budget counts
// the tiles already written, so a crash never grants a second allowance. Before, the pages not
// rendered at the crash stayed 404 until the document was re-uploaded.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { documentKey, previewDirKey, previewKey } from "../../src/store/blob-keys.ts";
import { textPdf } from "../convert/fixtures.ts";
import { noisePdf } from "./noise-pdf.ts";

/** The one generation a document committed once has (its folder g<generation>). */
const generation = (k: Kbqa, org: Org, id: string) =>
  Number(readdirSync(join(k.dataDir, "blobs", documentKey(org.orgId, id))).find((g) => /^g\d+$/.test(g))?.slice(1) ?? -1);
const tile = (k: Kbqa, org: Org, id: string, page: number, size: "SMALL" | "MEDIUM") =>
  join(k.dataDir, "blobs", previewKey(org.orgId, id, generation(k, org, id), page, size));
const pageDone = (k: Kbqa, org: Org, id: string, page: number) => existsSync(tile(k, org, id, page, "SMALL")) && existsSync(tile(k, org, id, page, "MEDIUM"));

/** Ingests the PDF, stops the server (SIGKILL unless told) once page `killAfter`'s tiles exist, and starts it again on the same data. */
async function killMidway(flags: string[], pdf: Uint8Array, killAfter: number, lastPage: number, signal: "SIGKILL" | "SIGTERM" = "SIGKILL") {
  const first = await startKbqa({ keepData: true, flags });
  const org = await first.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const id = await ingestDocument(first, org, corpusId, "doc.pdf", pdf, "application/pdf");
  await waitFor(() => pageDone(first, org, id, killAfter), `page ${killAfter}'s tiles`, 60_000, 5);
  await first.stop(signal);
  // The test means something only if the kill came before the last page.
  expect(pageDone(first, org, id, lastPage)).toBe(false);
  const again = await startKbqa({ dataDir: first.dataDir, flags });
  return { k: again, org, id, [Symbol.asyncDispose]: async () => (await again.stop(), rmSync(first.dataDir, { recursive: true, force: true })) };
}

test.each(["SIGKILL", "SIGTERM"] as const)("a server stopped by %s while rendering a 60-page PDF renders the remaining pages after its restart", async (signal) => {
  await using run = await killMidway([], await textPdf(60), 0, 59, signal);
  const { k, org, id } = run;
  await waitFor(() => pageDone(k, org, id, 59), "the last page's tiles after the restart", 90_000);
  const missing = Array.from({ length: 60 }, (_, p) => p).filter((p) => !pageDone(k, org, id, p));
  expect(missing).toEqual([]);
}, 180_000);

test("after a restart the byte budget counts the tiles already written: the cut comes at the same place", async () => {
  // About twelve of these noise pages (~1.2 MB each): the kill comes in the second batch of eight,
  // so the restart resumes at page 8 with eight pages' bytes already spent.
  const MAX_BYTES = 14 * 2 ** 20;
  await using run = await killMidway(["--preview-max-bytes", String(MAX_BYTES), "--preview-bytes-ratio", "0"], noisePdf(30, { imageWidth: 256, imageHeight: 1024 }), 8, 12);
  const { k, org, id } = run;
  const line = await waitFor(() => k.stderr().split("\n").find((l) => l.includes('"previews cut"') && l.includes(id)), "the cut logged after the restart", 90_000);
  const cut = JSON.parse(line);
  expect(cut).toMatchObject({ documentId: id, reason: "bytes", nbPages: 30, maxBytes: MAX_BYTES });
  const dir = join(k.dataDir, "blobs", previewDirKey(org.orgId, id, generation(k, org, id)));
  const files = readdirSync(dir);
  const bytes = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  expect(bytes).toBeLessThanOrEqual(MAX_BYTES);
  const pages = Array.from({ length: 30 }, (_, p) => p).filter((p) => pageDone(k, org, id, p));
  expect(pages).toEqual(Array.from({ length: cut.pagesWritten }, (_, p) => p));
  expect(cut.pagesWritten).toBeGreaterThan(9);
  expect(k.stderr()).toContain('"previews resumed"');
}, 180_000);

test("restarts that each find the rendering further on never add up to giving it up", async () => {
  // Three kills, each after another batch of pages finished: every start made progress, so the
  // fourth start still resumes (before, any three interrupted starts gave the previews up).
  const pdf = await textPdf(60);
  let k = await startKbqa({ keepData: true });
  const dataDir = k.dataDir;
  try {
    const org = await k.org();
    const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
    const id = await ingestDocument(k, org, corpusId, "doc.pdf", pdf, "application/pdf");
    for (const page of [8, 16, 24]) {
      await waitFor(() => pageDone(k, org, id, page), `page ${page}'s tiles`, 60_000, 5);
      await k.stop("SIGKILL");
      expect(pageDone(k, org, id, 59)).toBe(false);
      k = await startKbqa({ dataDir, keepData: true });
    }
    await waitFor(() => pageDone(k, org, id, 59), "the last page's tiles after the fourth start", 90_000);
    expect(k.stderr()).not.toContain("previews given up");
  } finally {
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 240_000);
