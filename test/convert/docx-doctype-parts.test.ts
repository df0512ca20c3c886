import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { DOCX, PPTX, XLSX } from "../../src/ingest/formats.ts";
import { docx } from "./fixtures.ts";
import { pptx } from "./pptx-fixture.ts";
import { xlsx } from "./xlsx-fixture.ts";

// The DOCTYPE guard only looked at parts named *.xml, *.rels or *.vml, but every format finds its parts
// through relationships, whose targets may have any name: a DOCTYPE in `word/evil.dat` reached mammoth's
// XML parser, and its error ("[xmldom error] entity not found:&c;") became the statusMsg.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const XXE = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd"><!ENTITY a "aaaaaaaaaa"><!ENTITY c "&a;&a;&a;&a;">]>`;
const refusal = (part: string) => `archive part ${part} contains a DOCTYPE declaration, which is refused for safety`;

const relsTo = (target: string) => `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/></Relationships>`;

test("a DOCX main part reached through _rels/.rels under any name is checked", async () => {
  const bytes = await docx({
    "_rels/.rels": relsTo("word/evil.dat"),
    "word/evil.dat": `${XXE}<w:document ${W}><w:body><w:p><w:r><w:t>&x; &c;</w:t></w:r></w:p></w:body></w:document>`,
  });
  const err = await convert(bytes, DOCX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toBe(refusal("word/evil.dat"));
});

test("a DOCX styles part with another name is checked too", async () => {
  const rels = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="media/styles.png"/></Relationships>`;
  const bytes = await docx({ "word/_rels/document.xml.rels": rels, "word/media/styles.png": `${XXE}<w:styles ${W}/>` });
  const err = await convert(bytes, DOCX).catch((e) => e);
  expect(err.message).toBe(refusal("word/media/styles.png"));
});

test("a part that no parser reads may carry a DOCTYPE (an SVG image, say)", async () => {
  const svg = `<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg/>`;
  const out = await convert(await docx({ "word/media/image1.svg": svg }), DOCX);
  expect(out.markdown).toStartWith("# Annual Report\n");
});

test("an XLSX sheet under any name is checked", async () => {
  const rels = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.bin"/></Relationships>`;
  const sheet = `${XXE}<worksheet><sheetData><row><c t="inlineStr"><is><t>&x;</t></is></c></row></sheetData></worksheet>`;
  const err = await convert(await xlsx({ "xl/_rels/workbook.xml.rels": rels, "xl/worksheets/sheet1.bin": sheet }), XLSX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toBe(refusal("xl/worksheets/sheet1.bin"));
});

test("a PPTX slide under any name is checked", async () => {
  const rels = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId2" Type="slide" Target="slides/slide2.txt"/></Relationships>`;
  const err = await convert(await pptx({ "ppt/_rels/presentation.xml.rels": rels, "ppt/slides/slide2.txt": `${XXE}<p:sld/>` }), PPTX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toBe(refusal("ppt/slides/slide2.txt"));
});

test("a DOCTYPE in UTF-16 without a byte-order mark is found as well", async () => {
  const s = `<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE x SYSTEM "file:///etc/passwd"><sst/>`;
  const utf16 = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) utf16[i * 2] = s.charCodeAt(i);
  const err = await convert(await xlsx({ "xl/sharedStrings.xml": utf16 as unknown as string }), XLSX).catch((e) => e);
  expect(err.message).toBe(refusal("xl/sharedStrings.xml"));
});
