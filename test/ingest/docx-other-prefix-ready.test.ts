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

// A DOCX over the slicing threshold whose root also binds the main namespace to "x:", with a
// footnote referenced as x:footnoteReference far into the body: the slicer did not see the
// reference, the slice went to mammoth without its note, and the document ended FAILED ("the file
// is damaged") although mammoth reads the whole file fine. It is now converted whole.

const MAIN = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

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

test("a long DOCX naming the main namespace with a second prefix ends READY with its note", async () => {
  const paras: string[] = [];
  for (let i = 1; i <= 30_000; i++) {
    paras.push(`<w:p><w:r><w:t>Paragraph ${i} of the prefixed document.</w:t></w:r>${i === 29_000 ? `<x:r><x:footnoteReference x:id="2"/></x:r>` : ""}</w:p>`);
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${MAIN}" xmlns:x="${MAIN}"><w:body>${paras.join("\n")}<w:sectPr/></w:body></w:document>`;
  expect(xml.length).toBeGreaterThan(1024 * 1024);
  const org = await k.org();
  const bytes = await zipOf({ ...longDocxParts(1), "word/document.xml": xml });
  const id = await ingestDocument(k, org, await corpus(org), "prefixed.docx", bytes, DOCX, {}, 120_000);
  const md = (await readConverted(db, new FsBlobStore(join(k.dataDir, "blobs")), org.orgId, id, docState(db, id).generation))!;
  expect(md).toContain("Paragraph 29000 of the prefixed document.[1]");
  expect(md.endsWith("1. A note near the end. ↑\n")).toBe(true);
}, 180_000);
