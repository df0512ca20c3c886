import { expect, test } from "bun:test";
import { DOCX_SLICE_CHARS, docxToMarkdown } from "../../src/ingest/convert/docx.ts";
import { listStyleIds, planSlices } from "../../src/ingest/convert/docx-slices.ts";
import { longDocxParts, notedDocxParts } from "../ingest/long-docx.ts";
import { CONTENT_TYPES, DOCUMENT_XML, docx, docxParts, zipOf } from "./fixtures.ts";

// A long DOCX is converted in slices of its body (docx-slices.ts). Cut where mammoth carries
// nothing across, the slices must give the markdown of the whole, byte for byte: here every
// fixture is converted whole and again cut at every place the cutter allows.

const LIMITS = { maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 10_000 };
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const p = (text: string, pPr = "", tail = "") => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}<w:r><w:t>${text}</w:t></w:r>${tail}</w:p>`;
const item = (text: string, numId: number, ilvl = 0) => p(text, `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);
const note = (id: number) => `<w:r><w:footnoteReference w:id="${id}"/></w:r>`;
const fld = (type: string) => `<w:r><w:fldChar w:fldCharType="${type}"/></w:r>`;

const NS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
  'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"';
const image = `<w:r><w:drawing><wp:inline><wp:docPr id="1" name="Picture 1" descr="A chart of sales"/><a:graphic><a:graphicData>` +
  `<pic:pic><pic:blipFill><a:blip r:embed="rIdImg"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`;
const comment = (id: number) => `<w:commentRangeStart w:id="${id}"/><w:r><w:t>commented</w:t></w:r><w:commentRangeEnd w:id="${id}"/><w:r><w:commentReference w:id="${id}"/></w:r>`;
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const TRICKY_PARTS = {
  "[Content_Types].xml": CONTENT_TYPES.replace("<Default Extension=\"xml\"", '<Default Extension="png" ContentType="image/png"/><Default Extension="xml"'),
  "word/_rels/document.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="${REL}/styles" Target="styles.xml"/><Relationship Id="rId2" Type="${REL}/numbering" Target="numbering.xml"/>
<Relationship Id="rId3" Type="${REL}/footnotes" Target="footnotes.xml"/><Relationship Id="rId4" Type="${REL}/comments" Target="comments.xml"/>
<Relationship Id="rIdImg" Type="${REL}/image" Target="media/image1.png"/></Relationships>`,
  "word/comments.xml": `<?xml version="1.0"?><w:comments ${W}><w:comment w:id="0" w:author="A" w:initials="A"><w:p><w:r><w:t>First comment.</w:t></w:r></w:p></w:comment>` +
    `<w:comment w:id="1" w:author="B" w:initials="B"><w:p><w:r><w:t>Second comment.</w:t></w:r></w:p></w:comment></w:comments>`,
  "word/media/image1.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
};

/** What a cut could break: notes in many slices, lists across empty paragraphs and levels, fields and deleted marks across paragraphs, images, comments. */
const TRICKY = `<?xml version="1.0" encoding="UTF-8"?><w:document ${W} ${NS}><w:body>
${p("Title", '<w:pStyle w:val="Heading1"/>')}
${p("Opening with a note.", "", note(1))}
${item("one", 2)}${item("two", 2)}${p("")}${item("three after an empty paragraph", 2)}${item("three.a", 2, 1)}
${p("Between lists.", "", image)}${item("four", 2)}
${p("A comment on", "", comment(0))}${p("a picture", "", image + comment(1))}
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
  "notes, lists, fields, deleted marks, images, comments": () => zipOf({ ...longDocxParts(1), ...TRICKY_PARTS, "word/document.xml": TRICKY }),
  // mammoth shows comments, numbered per conversion, when a style map embedded in the file asks: not cut
  "comments shown by an embedded style map": () =>
    zipOf({ ...longDocxParts(1), ...TRICKY_PARTS, "word/document.xml": TRICKY, "mammoth/style-map": "comment-reference => sup" }),
  "the long fixture at 300 paragraphs": () => zipOf(longDocxParts(300)),
  "a footnote in every paragraph": () => zipOf(notedDocxParts(200)),
};

for (const [name, make] of Object.entries(cases)) {
  test(`${name}: the same markdown whole and in slices`, async () => {
    const bytes = await make();
    const whole = await docxToMarkdown(bytes, LIMITS);
    if (name.includes("images")) expect(whole).toContain("A chart of sales");
    if (name.includes("style map")) expect(whole).toContain("Comment [B2]");
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
