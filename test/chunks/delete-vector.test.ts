// DELETE /v1/chunk/{id} used to answer only after LanceDB's delete, queued behind every other
// write to the shared table (1.7 s right after a restart at 150,000 rows), though SQLite hides the
// chunk at once; and a crash or a failed delete left its vector for good. The deletion now records
// a vector drop in its own transaction, carried out in the background: these tests check that
// exactly that chunk's vector goes (its document's other vectors and preview tiles stay), also
// when the server that committed the deletion never got to LanceDB.
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, tempDir, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { textPdf } from "../convert/fixtures.ts";
import { openLanceIndex } from "../../src/store/lance.ts";
import { openDb } from "../../src/store/db.ts";
import { chunkService } from "../../src/chunks/service.ts";
import { documentKey, previewKey } from "../../src/store/blob-keys.ts";

/** The chunk ids among `ids` that still have a vector. */
async function withVector(dataDir: string, ids: string[]): Promise<string[]> {
  const ix = await openLanceIndex(join(dataDir, "lance"), "builtin-hash-embed", 384);
  try {
    const found = await ix.texts(ids);
    return ids.filter((id) => found.has(id));
  } finally {
    await ix.close();
  }
}

async function pdfWithChunks(k: Kbqa, org: Org): Promise<{ documentId: string; chunkIds: string[] }> {
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id as string;
  const documentId = await ingestDocument(k, org, corpusId, "three.pdf", await textPdf(3), "application/pdf");
  const list = await org.api("GET", `/v1/chunk/q?documentId=${documentId}&pageSize=100`);
  const chunkIds = (list.body.items as { id: string }[]).map((c) => c.id);
  expect(chunkIds.length).toBeGreaterThan(1);
  await waitFor(async () => (await withVector(k.dataDir, chunkIds)).length === chunkIds.length, "every chunk's vector");
  return { documentId, chunkIds };
}

test("a deleted chunk's vector goes; its document's other vectors and preview tiles stay", async () => {
  await using k = await startKbqa();
  const org = await k.org();
  const { documentId, chunkIds } = await pdfWithChunks(k, org);
  const docDir = join(k.dataDir, "blobs", documentKey(org.orgId, documentId));
  const tile = await waitFor(() => {
    const g = readdirSync(docDir).find((n) => /^g\d+$/.test(n));
    const path = g && join(k.dataDir, "blobs", previewKey(org.orgId, documentId, Number(g.slice(1)), 0, "SMALL"));
    return path && existsSync(path) ? path : undefined;
  }, "the first page's tile", 60_000);

  expect((await org.api("DELETE", `/v1/chunk/${chunkIds[0]}`)).status).toBe(200);
  await waitFor(async () => !(await withVector(k.dataDir, chunkIds)).includes(chunkIds[0]!), "the deleted chunk's vector to go");
  expect(await withVector(k.dataDir, chunkIds)).toEqual(chunkIds.slice(1));
  expect(existsSync(tile)).toBe(true);
  expect((await org.api("GET", `/v1/doc/${documentId}/preview-urls?pages=0`)).status).toBe(200);
  expect((await org.api("GET", `/v1/doc/${documentId}`)).body.status).toBe("READY");
}, 120_000);

test("a chunk deletion committed by a server that never reached LanceDB is carried out at the next start", async () => {
  using dir = tempDir();
  let doc: { documentId: string; chunkIds: string[] };
  let orgId: string;
  {
    await using k = await startKbqa({ dataDir: dir.path });
    const org = await k.org();
    orgId = org.orgId;
    doc = await pdfWithChunks(k, org);
  }
  // The deletion's transaction as the route runs it, with no server left to carry out the drop.
  const db = openDb(dir.path);
  chunkService(db, { now: () => Date.now() }).remove(orgId, doc.chunkIds[1]!);
  db.close();
  expect(await withVector(dir.path, doc.chunkIds)).toEqual(doc.chunkIds);

  await using k = await startKbqa({ dataDir: dir.path });
  await waitFor(async () => !(await withVector(k.dataDir, doc.chunkIds)).includes(doc.chunkIds[1]!), "the drop to be carried out after the restart");
  expect(await withVector(k.dataDir, doc.chunkIds)).toEqual(doc.chunkIds.filter((_, i) => i !== 1));
}, 120_000);
