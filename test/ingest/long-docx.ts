import { CONTENT_TYPES, docxParts, zipOf } from "../convert/fixtures.ts";

// A DOCX of a few thousand pages: short paragraphs, a heading every 20,000 of them, one numbered
// list long enough that a slice boundary would fall inside it, and two footnotes, one near the
// start and one near the end, so a note's number depends on notes met in earlier slices.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const p = (text: string, pPr = "", run = "") => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}<w:r><w:t>${text}</w:t></w:r>${run}</w:p>`;
const noteRef = (id: number) => `<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="${id}"/></w:r>`;

export const LONG_DOCX = {
  first: "Paragraph 1 opens the long document.",
  last: (n: number) => `Paragraph ${n} closes the long document.`,
  listItems: 10_000,
  /** Where the list starts: past the first slice's worth of paragraphs. */
  listAt: 40_000,
};

export function longDocumentXml(paragraphs: number): string {
  const out: string[] = [`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>`];
  for (let i = 1; i <= paragraphs; i++) {
    if (i % 20_000 === 1) out.push(p(`Part ${Math.ceil(i / 20_000)}`, '<w:pStyle w:val="Heading1"/>'));
    if (i === LONG_DOCX.listAt) {
      for (let j = 1; j <= LONG_DOCX.listItems; j++) {
        out.push(p(`List item ${j}`, '<w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="2"/></w:numPr>'));
      }
    }
    const text = i === 1 ? LONG_DOCX.first : i === paragraphs ? LONG_DOCX.last(paragraphs) : `Paragraph ${i} of the long document.`;
    out.push(p(text, "", i === 10 ? noteRef(1) : i === paragraphs - 10 ? noteRef(2) : ""));
  }
  out.push(`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`);
  return out.join("\n");
}

const FOOTNOTES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:footnotes ${W}>
<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>
<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>
<w:footnote w:id="1"><w:p><w:r><w:t>A note near the start.</w:t></w:r></w:p></w:footnote>
<w:footnote w:id="2"><w:p><w:r><w:t>A note near the end.</w:t></w:r></w:p></w:footnote>
</w:footnotes>`;

const DOC_RELS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>
</Relationships>`;

/** The parts of a long DOCX (the test fixture's styles and numbering, plus footnotes). */
export function longDocxParts(paragraphs: number): Record<string, string | Uint8Array> {
  return docxParts({
    "[Content_Types].xml": CONTENT_TYPES,
    "word/_rels/document.xml.rels": DOC_RELS,
    "word/footnotes.xml": FOOTNOTES,
    "word/document.xml": longDocumentXml(paragraphs),
  });
}

export const longDocx = (paragraphs: number) => zipOf(longDocxParts(paragraphs));

/** A DOCX whose every paragraph has a footnote of its own: its notes part is about as long as its body. */
export function notedDocxParts(paragraphs: number): Record<string, string | Uint8Array> {
  const body: string[] = [];
  const notes: string[] = [];
  for (let i = 1; i <= paragraphs; i++) {
    body.push(p(`Paragraph ${i} of the annotated document.`, "", noteRef(i)));
    notes.push(`<w:footnote w:id="${i}"><w:p><w:r><w:t>Footnote ${i} explains paragraph ${i}.</w:t></w:r></w:p></w:footnote>`);
  }
  return {
    ...longDocxParts(1),
    "word/document.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>\n${body.join("\n")}\n</w:body></w:document>`,
    "word/footnotes.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes ${W}>\n${notes.join("\n")}\n</w:footnotes>`,
  };
}
