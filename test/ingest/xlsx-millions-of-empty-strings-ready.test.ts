import { afterAll, beforeAll, expect, test } from "bun:test";
import JSZip from "jszip";
import { chunkBodies, corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// A 278 KB XLSX whose shared strings are 38 million empty `<si/>` (190 MB of XML) ended FAILED
// with the 1 GiB memory-limit message: the part's inflated bytes were held twice while inflating
// and then beside its text, the tokenizer made objects per tag that the collector let pile up, and
// the strings' 4-byte end offsets took 152 MB. Converting it alone peaked at 1,323 MiB; it is now
// near 430 MiB, and the document is READY.

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

test("an XLSX of 38 million empty shared strings (278 KB) ends READY", async () => {
  const zip = new JSZip();
  zip.file("[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`);
  zip.file("xl/workbook.xml", `<?xml version="1.0"?><workbook ${NS} ${R}><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`);
  zip.file("xl/_rels/workbook.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/></Relationships>`);
  zip.file("xl/sharedStrings.xml", `<?xml version="1.0"?><sst ${NS}><si><t>hello</t></si>` + "<si/>".repeat(38_000_000) + `<si><t>world</t></si></sst>`);
  zip.file("xl/worksheets/sheet1.xml", `<?xml version="1.0"?><worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>38000001</v></c><c r="C1" t="s"><v>7</v></c></row></sheetData></worksheet>`);
  const bytes = await zip.generateAsync({ type: "uint8array", compression: "DEFLATE", compressionOptions: { level: 9 } });
  expect(bytes.length).toBeLessThan(300_000);
  const end = await ingestSettled(a, await corpus(a, "sheets"), "empty.xlsx", bytes, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", 150_000);
  expect({ commit: end.commit, status: end.status, statusMsg: end.statusMsg }).toEqual({ commit: 202, status: "READY", statusMsg: undefined });
  expect((await chunkBodies(a, end.id)).join("\n")).toContain("| hello | world |  |");
}, 200_000);
