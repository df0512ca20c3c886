import { expect, test } from "bun:test";
import { docxToMarkdown } from "../../src/ingest/convert/docx.ts";
import { ConversionError } from "../../src/ingest/convert/errors.ts";
import { longDocxParts } from "../ingest/long-docx.ts";
import { zipOf } from "./fixtures.ts";

// mammoth lists a note once per reference to it: one note of 5,000 characters referred to 400 times
// is 24 KB of parts and 2 MB of converted text. Under a 1 MiB limit the conversion went through; it
// is now refused saying why, converted whole or in slices (whose text is counted together).

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const ref = `<w:p><w:r><w:t>Cited.</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p>`;
const bomb = () => zipOf({
  ...longDocxParts(1),
  "word/document.xml": `<?xml version="1.0"?><w:document ${W}><w:body>${ref.repeat(400)}</w:body></w:document>`,
  "word/footnotes.xml": `<?xml version="1.0"?><w:footnotes ${W}><w:footnote w:id="1"><w:p><w:r><w:t>Note start. ${"long note ".repeat(499)}</w:t></w:r></w:p></w:footnote></w:footnotes>`,
});
const LIMITS = { maxUncompressedBytes: 1024 * 1024, maxZipEntries: 100 };
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));
const REFUSED = "the DOCX's content would hold more than 1 MiB of text (a footnote referred to many times over, or the like), over the limit";

test("a note referred to 400 times over a 1 MiB limit is refused, converted whole", async () => {
  expect(await reason(docxToMarkdown(await bomb(), LIMITS))).toBe(REFUSED);
});

test("and converted in slices, whose text counts together", async () => {
  expect(await reason(docxToMarkdown(await bomb(), LIMITS, 2_000))).toBe(REFUSED);
});

test("under the default limit the same file converts, every reference numbered", async () => {
  const md = await docxToMarkdown(await bomb(), { ...LIMITS, maxUncompressedBytes: 200 * 1024 * 1024 }, 2_000);
  expect(md).toContain("Cited.[400]\n");
  expect(md.split("Note start.").length).toBe(401);
});
