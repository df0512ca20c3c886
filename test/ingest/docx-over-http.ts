import { afterAll, beforeAll } from "bun:test";
import { join } from "node:path";
import { readConverted } from "../../src/ingest/converted.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import type { Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { corpus } from "../documents/helpers.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, type Kbqa } from "../helpers/server.ts";
import { docState, openTestDb } from "./seed.ts";

/**
 * For the long-DOCX tests: a server with one ingestion worker, started before the file's tests
 * and stopped after them, and a function that uploads a DOCX to it, waits until it is READY and
 * returns the markdown it was converted to (the chunks would split it; the tests read it whole).
 */
export function docxServer(): (filename: string, bytes: Uint8Array, timeoutMs: number) => Promise<string> {
  let k: Kbqa;
  let db: Db;
  beforeAll(async () => {
    k = await startKbqa({ flags: ["--workers", "1"] });
    db = openTestDb(k.dataDir);
  });
  afterAll(async () => {
    db?.close();
    await k?.stop();
  });
  return async (filename, bytes, timeoutMs) => {
    const org = await k.org();
    const id = await ingestDocument(k, org, await corpus(org), filename, bytes, DOCX, {}, timeoutMs);
    return (await readConverted(db, new FsBlobStore(join(k.dataDir, "blobs")), org.orgId, id, docState(db, id).generation))!;
  };
}
