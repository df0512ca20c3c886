import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor, type Kbqa } from "../helpers/server.ts";
import { INLINE_MARKDOWN_CHARS, readConverted } from "../../src/ingest/converted.ts";
import { markdownKey, originalKey } from "../../src/store/blob-keys.ts";
import type { Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { newId } from "../../src/store/ids.ts";
import { utf8 } from "../convert/fixtures.ts";
import { docState, openTestDb, seedDoc } from "./seed.ts";

let k: Kbqa;
let db: Db;
let blobs: FsBlobStore;
const orgId = newId();
const corpusId = newId();

beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  db = openTestDb(k.dataDir);
  blobs = new FsBlobStore(join(k.dataDir, "blobs"));
});
afterAll(async () => {
  db?.close();
  await k?.stop();
});

const ready = async (id: string, generation: number) => {
  await waitFor(() => docState(db, id).status === "READY" && docState(db, id).generation === generation, `document ${id} READY`, 60_000);
};
const inlineRows = (id: string) =>
  db.query<{ generation: number }, [string]>("SELECT generation FROM converted WHERE document_id = ? ORDER BY generation").all(id);
const blobExists = (id: string, generation: number) => existsSync(blobs.filePath(markdownKey(orgId, id, generation)));

/** A new generation of the document, committed the way a replacement upload commits it. */
async function replace(id: string, bytes: Uint8Array) {
  await blobs.put(originalKey(orgId, id), bytes);
  const now = Date.now();
  db.transaction(() => {
    db.query("UPDATE documents SET generation = 2, status = 'PROCESSING', size = ?, updated_at = ? WHERE id = ?").run(bytes.byteLength, now, id);
    db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 2, 'queued', ?)").run(orgId, id, now);
  })();
}

test("a small document's markdown is kept in the database, a large one's in the blob store; both read back whole", async () => {
  const small = "# Valves\n\nThe inspector checks every valve before the shift.\n";
  const paragraph = "Pressure readings are logged every hour by the duty engineer on the ground floor.\n\n";
  const large = `# Log\n\n${paragraph.repeat(Math.ceil((INLINE_MARKDOWN_CHARS + 1000) / paragraph.length))}`;
  const a = await seedDoc(db, k.dataDir, { orgId, corpusId, bytes: utf8(small), contentType: "text/markdown" });
  const b = await seedDoc(db, k.dataDir, { orgId, corpusId, bytes: utf8(large), contentType: "text/markdown" });
  await ready(a, 1);
  await ready(b, 1);

  expect({ rows: inlineRows(a), blob: blobExists(a, 1) }).toEqual({ rows: [{ generation: 1 }], blob: false });
  expect({ rows: inlineRows(b), blob: blobExists(b, 1) }).toEqual({ rows: [], blob: true });
  const smallMd = await readConverted(db, blobs, orgId, a, 1);
  const largeMd = await readConverted(db, blobs, orgId, b, 1);
  expect(smallMd).toContain("The inspector checks every valve before the shift.");
  expect(largeMd!.length).toBeGreaterThan(INLINE_MARKDOWN_CHARS);
  expect(largeMd).toContain(paragraph.trim());
  // Another organization's id never reads it; an unknown generation has none.
  expect(await readConverted(db, blobs, newId(), a, 1)).toBeNull();
  expect(await readConverted(db, blobs, orgId, a, 2)).toBeNull();
});

test("a new generation replaces the kept markdown and drops the earlier generation's row", async () => {
  const a = await seedDoc(db, k.dataDir, { orgId, corpusId, bytes: utf8("# First\n\nfirst version of the note\n"), contentType: "text/markdown" });
  await ready(a, 1);
  await replace(a, utf8("# Second\n\nsecond version of the note\n"));
  await ready(a, 2);
  expect(inlineRows(a)).toEqual([{ generation: 2 }]);
  expect(await readConverted(db, blobs, orgId, a, 2)).toContain("second version of the note");
  expect(await readConverted(db, blobs, orgId, a, 1)).toBeNull();
});
