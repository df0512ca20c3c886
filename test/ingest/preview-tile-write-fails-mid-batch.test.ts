// A tile write that fails while its batch of pages is still rendering must be a handled failure
// of that rendering. Before 8d20bb6 the write's promise got its handler only once the whole batch
// had rendered, so its rejection went unhandled meanwhile, and Bun ends a process on an
// unhandled rejection: a 35-minute soak lost its server (SIGABRT) to a tile directory dropped by a
// deletion under the renderer. Here the real store meets a plain file where the document's tile
// directory should be made, from the first tile on. bun test fails the running test on an
// unhandled rejection (whatever process.on handlers say), so the test fails on the old code.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { renderPreviews, PREVIEW_BATCH } from "../../src/ingest/previews.ts";
import { enqueuePreviews, previewProgress } from "../../src/ingest/preview-jobs.ts";
import { WorkerPool } from "../../src/ingest/pool.ts";
import { openDb } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { previewDirKey } from "../../src/store/blob-keys.ts";
import { newId } from "../../src/store/ids.ts";
import { textPdf } from "../convert/fixtures.ts";
import { seedDoc } from "./seed.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-tile-write-fails-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a tile write failing while the batch still renders stops the rendering with a log line, not an unhandled rejection", async () => {
  const db = openDb(dir);
  const blobs = new FsBlobStore(join(dir, "blobs"));
  const pool = new WorkerPool({ size: 1, timeoutMs: 60_000, memoryBytes: 2 ** 30 });
  try {
    const orgId = newId();
    const pages = PREVIEW_BATCH; // one batch: page 0's tiles are written while pages 1-7 render
    const documentId = await seedDoc(db, dir, { orgId, corpusId: newId(), bytes: await textPdf(pages), contentType: "application/pdf" });
    db.query("UPDATE documents SET status = 'READY', nb_pages = ? WHERE id = ?").run(pages, documentId);
    const job = { orgId, documentId, generation: 1, blobKey: db.query<{ blob_key: string }, [string]>("SELECT blob_key FROM documents WHERE id = ?").get(documentId)!.blob_key, nbPages: pages };
    enqueuePreviews(db, job, Date.now());
    const tiles = blobs.filePath(previewDirKey(orgId, documentId, 1));
    mkdirSync(dirname(tiles), { recursive: true });
    writeFileSync(tiles, "not a directory");

    const errors: Record<string, unknown>[] = [];
    const log = { info() {}, error: (msg: string, extra?: Record<string, unknown>) => void errors.push({ msg, ...extra }) };
    const written = await renderPreviews({ db, blobs, pool, log }, job, { maxPages: 100, maxBytes: 2 ** 30, bytesRatio: 0, reserveBytes: 0, dataDir: dir });

    expect(written).toBe(0);
    expect(errors).toEqual([expect.objectContaining({ msg: "preview rendering failed", documentId, error: expect.stringMatching(/EEXIST|ENOTDIR/) })]);
    // Not resumable (the document's own failure, not a stop or the volume): its row is ended.
    expect(previewProgress(db, job)).toBeNull();
  } finally {
    await pool.close();
    db.close();
  }
}, 60_000);
