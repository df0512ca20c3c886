import { afterAll, beforeAll, expect, test } from "bun:test";
import { PPTX, XLSX } from "../../src/ingest/formats.ts";
import { xlsx } from "../convert/xlsx-fixture.ts";
import { pptx } from "../convert/pptx-fixture.ts";
import { corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// An XLSX listing one sheet of empty rows 20,000 times in its workbook, or a PPTX listing one slide
// without text 100,000 times, is about 12 KiB of zip. Each listing parsed the part again and
// produced almost no text, so no text budget saw it: the worker was held until the time limit, and
// the document ended FAILED telling the operator to raise --ingest-timeout-ms. The XML parsed per
// listing now counts against the archive's uncompressed-size limit (200 MiB).

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

const sheetListed = (times: number) => xlsx({
  "xl/workbook.xml": `<?xml version="1.0"?><workbook ${NS} ${R}><sheets>${'<sheet name="S" sheetId="1" r:id="rId1"/>'.repeat(times)}</sheets></workbook>`,
  "xl/worksheets/sheet1.xml": `<?xml version="1.0"?><worksheet ${NS}><sheetData>${"<row/>".repeat(900_000)}</sheetData></worksheet>`,
});
const slideListed = (times: number) => pptx({
  "ppt/presentation.xml": `<?xml version="1.0"?><p:presentation ${P}><p:sldIdLst>${'<p:sldId id="257" r:id="rId3"/>'.repeat(times)}</p:sldIdLst></p:presentation>`,
  "ppt/slides/slide1.xml": `<?xml version="1.0"?><p:sld ${P}><p:cSld><p:spTree>${"<p:sp/>".repeat(300_000)}</p:spTree></p:cSld></p:sld>`,
});

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  // The time limit is far above what the refusal takes, and below the old wait for it.
  k = await startKbqa({ flags: ["--workers", "1", "--ingest-timeout-ms", "30000"] });
  a = await k.org();
  corpusId = await corpus(a, "listed");
}, 60_000);
afterAll(() => k?.stop());

async function ingest(filename: string, contentType: string, bytes: Uint8Array) {
  const { commit, status, statusMsg } = await ingestSettled(a, corpusId, filename, bytes, contentType);
  expect(commit).toBe(202);
  return { status, statusMsg };
}

test("an XLSX listing one empty sheet 20,000 times is refused by the size limit, not held to the time limit", async () => {
  const bytes = await sheetListed(20_000);
  expect(bytes.length).toBeLessThan(64 * 1024);
  expect(await ingest("listed.xlsx", XLSX, bytes)).toEqual({
    status: "FAILED",
    statusMsg: "the XLSX's sheets, counted each time its workbook lists them, hold more than 200 MiB of text (one sheet listed many times over), over the limit",
  });
}, 90_000);

test("a PPTX listing one slide without text 100,000 times is refused by the size limit, not held to the time limit", async () => {
  const bytes = await slideListed(100_000);
  expect(bytes.length).toBeLessThan(64 * 1024);
  expect(await ingest("listed.pptx", PPTX, bytes)).toEqual({
    status: "FAILED",
    statusMsg: "the PPTX's slides, counted each time its slide list names them, hold more than 200 MiB of text (one slide listed many times over), over the limit",
  });
}, 90_000);

test("the same sheet and slide listed a few times still convert", async () => {
  expect((await ingest("few.xlsx", XLSX, await sheetListed(3))).status).toBe("READY");
  expect((await ingest("few.pptx", PPTX, await slideListed(3))).status).toBe("READY");
}, 90_000);
