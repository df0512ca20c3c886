import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import { docx } from "./fixtures.ts";

// mammoth walks the XML tree recursively, so a well-formed DOCX nesting tables or content controls a
// few thousand deep overflows the call stack. The uploader was told "the file is damaged or not a
// Word document", which is false: Word opens it. The reason now names the nesting.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const doc = (body: string) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>${body}</w:body></w:document>`;
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));

test("tables nested 20,000 deep: a reason naming the nesting, not damage", async () => {
  const n = 20_000;
  const deep = doc("<w:tbl><w:tr><w:tc>".repeat(n) + "<w:p><w:r><w:t>deep</w:t></w:r></w:p>" + "</w:tc></w:tr></w:tbl>".repeat(n));
  expect(await reason(convert(await docx({ "word/document.xml": deep }), DOCX)))
    .toBe("could not read DOCX: its content is nested too deeply (thousands of levels of tables or other containers)");
});

test("ordinary nesting still converts", async () => {
  const n = 20;
  const nested = doc("<w:tbl><w:tr><w:tc>".repeat(n) + "<w:p><w:r><w:t>deep</w:t></w:r></w:p>" + "</w:tc></w:tr></w:tbl>".repeat(n));
  expect((await convert(await docx({ "word/document.xml": nested }), DOCX)).markdown).toContain("deep");
});
