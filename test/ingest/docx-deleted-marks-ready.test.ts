import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { readConverted } from "../../src/ingest/converted.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import type { Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { corpus } from "../documents/helpers.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, type Kbqa } from "../helpers/server.ts";
import { longDocxParts } from "./long-docx.ts";
import { zipOf } from "../convert/fixtures.ts";
import { docState, openTestDb } from "./seed.ts";

// A long DOCX with tracked changes: paragraphs whose mark is deleted (Word joins them to the next
// paragraph, and so does mammoth), each followed by a bookmark. Converted in slices, a cut fell
// after a bookmark, and the deleted-mark paragraph before it lost its text: READY, words missing.

const MAIN = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const N = 12_000;

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

test("a long DOCX of deleted paragraph marks and bookmarks ends READY with every word", async () => {
  const body: string[] = [];
  for (let i = 1; i <= N; i++) {
    body.push(`<w:p><w:pPr><w:rPr><w:del w:id="${i}" w:author="a" w:date="2026-01-01T00:00:00Z"/></w:rPr></w:pPr><w:r><w:t>Held ${i} </w:t></w:r></w:p>`);
    body.push(`<w:bookmarkStart w:id="${i}" w:name="b${i}"/><w:bookmarkEnd w:id="${i}"/>`);
    body.push(`<w:p><w:r><w:t>taken by paragraph ${i}.</w:t></w:r></w:p>`);
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${MAIN}"><w:body>${body.join("\n")}<w:sectPr/></w:body></w:document>`;
  expect(xml.length).toBeGreaterThan(1024 * 1024);
  const org = await k.org();
  const bytes = await zipOf({ ...longDocxParts(1), "word/document.xml": xml });
  const id = await ingestDocument(k, org, await corpus(org), "tracked.docx", bytes, DOCX, {}, 120_000);
  const md = (await readConverted(db, new FsBlobStore(join(k.dataDir, "blobs")), org.orgId, id, docState(db, id).generation))!;
  const missing = Array.from({ length: N }, (_, i) => i + 1).filter((i) => !md.includes(`Held ${i} taken by paragraph ${i}.`));
  expect(missing).toEqual([]);
}, 180_000);
