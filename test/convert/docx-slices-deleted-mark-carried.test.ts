import { expect, test } from "bun:test";
import { docxToMarkdown } from "../../src/ingest/convert/docx.ts";
import { longDocxParts } from "../ingest/long-docx.ts";
import { zipOf } from "./fixtures.ts";

// mammoth holds the runs of a paragraph whose mark is deleted until it reads the next paragraph,
// however many other body elements (bookmarks, tables, content controls) come between, and
// prepends them to it. The cutter only looked at the element just before a cut, so with a
// bookmark between, the held runs were at the end of a slice with no paragraph to join: their
// text was missing from the markdown, silently (found by comparing random documents whole and
// sliced). Nor may a slice cut at the maximum length end there: its held runs would be lost too.

const LIMITS = { maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 10_000 };
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const p = (text: string) => `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`;
const deletedMark = (text: string) => `<w:p><w:pPr><w:rPr><w:del w:id="3" w:author="a"/></w:rPr></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;
const doc = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}<w:sectPr/></w:body></w:document>`;

const between: Record<string, string> = {
  "a bookmark": `<w:bookmarkStart w:id="9" w:name="b"/><w:bookmarkEnd w:id="9"/>`,
  "a table of no paragraph": `<w:tbl><w:tr><w:tc></w:tc></w:tr></w:tbl>`,
};

for (const [name, middle] of Object.entries(between)) {
  test(`a deleted paragraph mark followed by ${name}: its text joins the next paragraph in slices too`, async () => {
    const body = p("Opening.") + deletedMark("Joined text") + middle + p("Next paragraph.") + p("Closing.");
    const bytes = await zipOf({ ...longDocxParts(1), "word/document.xml": doc(body) });
    const whole = await docxToMarkdown(bytes, LIMITS);
    expect(whole).toContain("Joined textNext paragraph.");
    expect(await docxToMarkdown(bytes, LIMITS, 1, Infinity)).toBe(whole);
  });
}

test("a cut at the maximum slice length waits for the paragraph that takes a deleted mark's runs", async () => {
  const body = p("Opening.") + deletedMark("Held once") + deletedMark("held twice") + p("Taken here.") + p("Closing.");
  const bytes = await zipOf({ ...longDocxParts(1), "word/document.xml": doc(body) });
  const whole = await docxToMarkdown(bytes, LIMITS);
  expect(whole).toContain("Held onceheld twiceTaken here.");
  expect(await docxToMarkdown(bytes, LIMITS, 1, 1)).toBe(whole);
});
