// A document's preview budget must hold across re-ingestion: re-init and commit (no new upload)
// renders the same pages again under a new generation, and the old generation's tiles, which no
// URL can serve any more, are removed instead of piling up one budget per commit.
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { previewKey } from "../../src/store/blob-keys.ts";
import { textPdf } from "../convert/fixtures.ts";
import { ingestDocument } from "../helpers/ingest.ts";

test("re-committing a PDF twice leaves only the current generation's preview tiles", async () => {
  await using k = await startKbqa();
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const id = await ingestDocument(k, org, corpusId, "doc.pdf", await textPdf(2), "application/pdf");
  const docDir = join(k.dataDir, "blobs", "orgs", org.orgId, "docs", id);
  const lastTile = (g: number) => existsSync(join(k.dataDir, "blobs", previewKey(org.orgId, id, g, 1, "SMALL")));
  const withPreviews = () => readdirSync(docDir).filter((g) => /^g\d+$/.test(g) && existsSync(join(docDir, g, "preview")));

  const first = Number((await waitFor(() => withPreviews().find((g) => lastTile(Number(g.slice(1)))), "first previews", 60_000)).slice(1));
  for (let round = 0; round < 2; round++) {
    expect((await org.api("PUT", `/v1/doc/${id}/init`)).status).toBe(200);
    expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
    await waitFor(async () => (await org.api("GET", `/v1/doc/${id}/status`)).body.status === "READY", "READY again", 60_000);
  }
  await waitFor(() => lastTile(first + 2), "the current generation's previews", 60_000);
  await waitFor(() => withPreviews().length === 1, "old generations' previews removed", 10_000).catch(() => {});
  expect(withPreviews()).toEqual([`g${first + 2}`]);
});
