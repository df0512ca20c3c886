import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import { docx, textPdf, utf8 } from "./fixtures.ts";

// A parser's own words reached statusMsg: "could not read DOCX: error: [xmldom error]\tentity not found:&c;",
// "could not read PDF: page 1: Command token too long: 128". The reason is said in words; the library's
// text goes to the worker's log.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));

test("a DOCX part that is not well-formed XML", async () => {
  const cut = await docx({ "word/document.xml": `<?xml version="1.0"?><w:document ${W}><w:body><w:p><w:r><w:t>cut` });
  expect(await reason(convert(cut, DOCX))).toBe("could not read DOCX: one of its parts is not well-formed XML");
  const undeclared = await docx({ "word/document.xml": `<?xml version="1.0"?><w:document ${W}><w:body><w:p><w:r><w:t>&c;</w:t></w:r></w:p></w:body></w:document>` });
  expect(await reason(convert(undeclared, DOCX))).toBe("could not read DOCX: one of its parts is not well-formed XML");
});

test("a PDF whose structure cannot be read", async () => {
  expect(await reason(convert(utf8("%PDF-1.4\ngarbage garbage\n%%EOF"), "application/pdf")))
    .toBe("could not read PDF: the file is damaged (its structure cannot be read)");
});

test("a PDF page whose content cannot be read", async () => {
  const bytes = await textPdf(2);
  // overwrite the first object's body with a run of letters: the page's content stream no longer parses
  const at = new TextDecoder("latin1").decode(bytes).indexOf("obj");
  bytes.fill(0x41, at, at + 400);
  expect(await reason(convert(bytes, "application/pdf"))).toBe("could not read PDF: page 1 is damaged and its text cannot be read");
});
