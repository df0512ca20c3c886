// Preview tiles of a deleted document can never be served again (their URLs answer 404 once the
// document or its corpus is deleted), yet they stayed on disk for good: the soak test
// (scripts/soak.ts) saw the data directory grow by 2.4 MB of tiles per 1,000 operations with live
// data constant. The vector drop that the deletion records now removes them; the original stays,
// as documented, and another document's tiles are left alone.
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { originalKey, previewKey } from "../../src/store/blob-keys.ts";
import { textPdf } from "../convert/fixtures.ts";
import { ingestDocument } from "../helpers/ingest.ts";

test("deleting a document or its corpus removes its preview tiles and keeps the original", async () => {
  await using k = await startKbqa();
  const org = await k.org();
  const corpus = async (name: string) => (await org.api("POST", "/v1/corpus/", { name })).body.id as string;
  const [kept, doomed] = [await corpus("kept"), await corpus("doomed")];
  const pdf = async (c: string, n: number) => ingestDocument(k, org, c, `doc${n}.pdf`, await textPdf(2 + n), "application/pdf");
  const [deleted, stays, inDoomed] = [await pdf(kept, 1), await pdf(kept, 2), await pdf(doomed, 3)];
  const blob = (key: string) => join(k.dataDir, "blobs", key);
  const previewDirs = (id: string) => {
    const dir = blob(`orgs/${org.orgId}/docs/${id}`);
    return readdirSync(dir).filter((g) => /^g\d+$/.test(g) && existsSync(join(dir, g, "preview")));
  };
  const rendered = (id: string) => previewDirs(id).some((g) => existsSync(blob(previewKey(org.orgId, id, Number(g.slice(1)), 1, "SMALL"))));
  // Rendered: the second page's tiles of each.
  for (const id of [deleted, stays, inDoomed]) await waitFor(() => rendered(id), `previews of ${id}`, 60_000);
  const staysDirs = previewDirs(stays);
  expect(staysDirs.length).toBe(1);

  expect((await org.api("DELETE", `/v1/doc/${deleted}`)).status).toBe(200);
  await waitFor(() => previewDirs(deleted).length === 0, "the deleted document's tiles to go", 20_000);
  expect((await org.api("DELETE", `/v1/corpus/${doomed}`)).status).toBe(200);
  await waitFor(() => previewDirs(inDoomed).length === 0, "the deleted corpus' document's tiles to go", 20_000);

  for (const id of [deleted, inDoomed]) expect(existsSync(blob(originalKey(org.orgId, id)))).toBe(true);
  expect(previewDirs(stays)).toEqual(staysDirs);
  expect((await org.api("GET", `/v1/doc/${stays}/preview-urls?pages=1`)).status).toBe(200);
}, 120_000);
