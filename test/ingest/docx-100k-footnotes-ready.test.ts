import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { readConverted } from "../../src/ingest/converted.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import type { Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { zipOf } from "../convert/fixtures.ts";
import { corpus } from "../documents/helpers.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, type Kbqa } from "../helpers/server.ts";
import { notedDocxParts } from "./long-docx.ts";
import { docState, openTestDb } from "./seed.ts";

// A long DOCX is converted in slices of its body, but mammoth reads all the footnotes with each
// slice: with a note per paragraph, 100,000 paragraphs made each slice hold 11 MB of notes (1.4
// GiB at the peak) and the document ended FAILED at the 1 GiB memory limit. Each slice now gets
// only the notes it refers to, and the notes part counts towards the length that is sliced.

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

test("a DOCX of 100,000 paragraphs with a footnote each ends READY, every note numbered and listed once", async () => {
  const n = 100_000;
  const org = await k.org();
  const id = await ingestDocument(k, org, await corpus(org), "noted.docx", await zipOf(notedDocxParts(n)), DOCX, {}, 240_000);
  const md = (await readConverted(db, new FsBlobStore(join(k.dataDir, "blobs")), org.orgId, id, docState(db, id).generation))!;
  expect(md.startsWith("Paragraph 1 of the annotated document.[1]\n\n")).toBe(true);
  expect(md).toContain(`\n\nParagraph ${n} of the annotated document.[${n}]\n\n1. Footnote 1 explains paragraph 1. ↑\n2. Footnote 2`);
  expect(md.endsWith(`\n${n}. Footnote ${n} explains paragraph ${n}. ↑\n`)).toBe(true);
  expect(md.split("Footnote 50000 explains").length).toBe(2);
}, 300_000);
