import { expect, test } from "bun:test";
import { DOCX_SLICE_CHARS, docxToMarkdown } from "../../src/ingest/convert/docx.ts";
import { listStyleIds, planSlices } from "../../src/ingest/convert/docx-slices.ts";
import { longDocxParts, notedDocxParts } from "../ingest/long-docx.ts";
import { DOCUMENT_XML, docx, docxParts, zipOf } from "./fixtures.ts";

// A long DOCX is converted in slices of its body (docx-slices.ts). Cut where mammoth carries
// nothing across, the slices must give the markdown of the whole, byte for byte: here every
// fixture is converted whole and again cut at every place the cutter allows.

const LIMITS = { maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 10_000 };
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const p = (text: string, pPr = "", tail = "") => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}<w:r><w:t>${text}</w:t></w:r>${tail}</w:p>`;
const item = (text: string, numId: number, ilvl = 0) => p(text, `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);
const note = (id: number) => `<w:r><w:footnoteReference w:id="${id}"/></w:r>`;
const fld = (type: string) => `<w:r><w:fldChar w:fldCharType="${type}"/></w:r>`;

/** What a cut could break: notes in many slices, lists across empty paragraphs and levels, fields and deleted marks across paragraphs. */
const TRICKY = `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>
${p("Title", '<w:pStyle w:val="Heading1"/>')}
${p("Opening with a note.", "", note(1))}
${item("one", 2)}${item("two", 2)}${p("")}${item("three after an empty paragraph", 2)}${item("three.a", 2, 1)}
${p("Between lists.")}${item("four", 2)}
${p("A field starts", "", `${fld("begin")}<w:r><w:instrText> HYPERLINK "https://example.com" </w:instrText></w:r>${fld("separate")}`)}
${p("and ends here.", "", fld("end"))}
${p("A deleted mark joins this", '<w:rPr><w:del w:id="9" w:author="a" w:date="2024-01-01T00:00:00Z"/></w:rPr>')}
${p("to this paragraph.", "", note(2))}
<w:tbl><w:tr><w:tc>${p("cell", "", note(1))}</w:tc></w:tr></w:tbl>
${Array.from({ length: 30 }, (_, i) => p(`Body paragraph ${i + 1}.`, "", i % 7 === 3 ? note(i % 2 ? 1 : 2) : "")).join("\n")}
${p("Closing", '<w:pStyle w:val="Heading2"/>')}
<w:sectPr/></w:body></w:document>`;

const cases: Record<string, () => Promise<Uint8Array>> = {
  "the DOCX fixture": () => docx(),
  "notes, lists, fields, deleted marks": () => zipOf({ ...longDocxParts(1), "word/document.xml": TRICKY }),
  "the long fixture at 300 paragraphs": () => zipOf(longDocxParts(300)),
  "a footnote in every paragraph": () => zipOf(notedDocxParts(200)),
};

for (const [name, make] of Object.entries(cases)) {
  test(`${name}: the same markdown whole and in slices`, async () => {
    const bytes = await make();
    const whole = await docxToMarkdown(bytes, LIMITS);
    for (const sliceChars of [1, 2_000]) expect(await docxToMarkdown(bytes, LIMITS, sliceChars, Infinity)).toBe(whole);
  });
}

test("the fixtures are cut: into many slices, never before a list item", () => {
  const listStyles = listStyleIds(null, null);
  expect(planSlices(DOCUMENT_XML, 1, listStyles, Infinity)!.slices.length).toBe(3);
  const tricky = planSlices(TRICKY, 1, listStyles, Infinity)!;
  expect(tricky.slices.length).toBeGreaterThan(30);
  for (const [start] of tricky.slices.slice(1)) expect(TRICKY.slice(start, TRICKY.indexOf("</w:p>", start))).not.toContain("numPr");
});

test("an ordinary DOCX is below the slice length and converted whole", () => {
  expect(docxParts()["word/document.xml"]!.length).toBeLessThan(DOCX_SLICE_CHARS);
  expect(planSlices(DOCUMENT_XML, DOCX_SLICE_CHARS, new Set())).toBeNull();
});
