// Lists joined again across forced slice cuts (docx-slices.ts joinListsAtCut), with items of more
// than plain text: empty ones, bold, line breaks, tabs, hyperlinks, bookmarks, footnote references,
// images, text reading "<ol>"; tables (some holding list items) and headings between items;
// numbering from a paragraph style, an unknown numId and numId 0. Cut before every element, every
// few and every several: the markdown must be the whole's. (Review of aee5420: none differed over
// 140 such documents.)
import { expect, test } from "bun:test";
import { docxToMarkdown } from "../../src/ingest/convert/docx.ts";
import { docxParts, zipOf } from "./fixtures.ts";
import { DOCX_LIMITS as LIMITS, LIST_NUMBERING as NUMBERING } from "./docx-list-numbering.ts";

const W = 'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
  `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>` +
  `<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>` +
  `<Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/i.png"/>` +
  `<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="http://x.test/a" TargetMode="External"/></Relationships>`;
let seed = 23;
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
let n = 0;
const runs = () => {
  const r = rnd(9);
  if (r === 0) return `<w:r><w:rPr><w:b/></w:rPr><w:t>b${n++}</w:t></w:r>`;
  if (r === 1) return `<w:r><w:br/></w:r><w:r><w:t>br${n++}</w:t></w:r>`;
  if (r === 2) return `<w:hyperlink r:id="rId9"><w:r><w:t>link${n++}</w:t></w:r></w:hyperlink>`;
  if (r === 3) return rnd(2) ? "" : `<w:r><w:footnoteReference w:id="${1 + rnd(2)}"/></w:r>`;
  if (r === 7) return `<w:r><w:pict><v:shape><v:imagedata r:id="rId4" o:title="img${n++}"/></v:shape></w:pict></w:r>`;
  if (r === 4) return `<w:r><w:tab/><w:t>tab${n++}</w:t></w:r>`;
  if (r === 5) return `<w:bookmarkStart w:id="${n}" w:name="bm${n}"/><w:r><w:t>bm${n++}</w:t></w:r><w:bookmarkEnd w:id="${n - 1}"/>`;
  return `<w:r><w:t xml:space="preserve">t${n++} &lt;ol&gt; </w:t></w:r>`;
};
const p = (inner: string, pPr = "") => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}${inner}</w:p>`;
const item = (numId: number, ilvl: number) => p(runs() + runs(), `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);
const table = () => `<w:tbl><w:tr><w:tc>${rnd(2) ? item(1 + rnd(3), rnd(2)) + item(1 + rnd(3), rnd(2)) : p(runs())}</w:tc><w:tc>${p(runs())}</w:tc></w:tr></w:tbl>`;
const documentXml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}<w:sectPr/></w:body></w:document>`;

const PNG = new Uint8Array(Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64"));
const FOOT = `<?xml version="1.0"?><w:footnotes ${W}><w:footnote w:id="1"><w:p><w:r><w:t>fn one</w:t></w:r></w:p></w:footnote>` +
  `<w:footnote w:id="2"><w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>fn list a</w:t></w:r></w:p><w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>fn list b</w:t></w:r></w:p></w:footnote></w:footnotes>`;
const STYLES = `<?xml version="1.0"?><w:styles ${W}><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>` +
  `<w:style w:type="paragraph" w:styleId="StyledList"><w:name w:val="Styled List"/><w:pPr><w:numPr><w:numId w:val="3"/></w:numPr></w:pPr></w:style>` +
  `<w:style w:type="paragraph" w:styleId="StyledBullet"><w:name w:val="Styled Bullet"/><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="2"/></w:numPr></w:pPr></w:style></w:styles>`;
test("random documents of rich list items, cut before every element or every few: the whole's markdown", async () => {
  const differing: number[] = [];
  let listed = 0;
  for (let k = 0; k < 12; k++) {
    const blocks = Array.from({ length: 5 + rnd(40) }, () => {
      const r = rnd(14);
      if (r === 0) return p(runs());
      if (r === 1) return "<w:p></w:p>";
      if (r === 2) return table();
      if (r === 3) return p(`<w:r><w:t>h${n++}</w:t></w:r>`, `<w:pStyle w:val="Heading1"/>`);
      if (r === 5) return p(runs() + runs(), `<w:pStyle w:val="StyledList"/>${rnd(2) ? `<w:numPr><w:ilvl w:val="${rnd(3)}"/></w:numPr>` : ""}`);
      if (r === 6) return p(runs(), `<w:pStyle w:val="StyledBullet"/>`);
      if (r === 4) return p(runs(), `<w:numPr><w:ilvl w:val="${rnd(9)}"/><w:numId w:val="${rnd(2) ? 7 : 0}"/></w:numPr>`); // unknown num / numId 0
      return item(1 + rnd(3), rnd(4));
    });
    const bytes = await zipOf(docxParts({ "word/numbering.xml": NUMBERING, "word/styles.xml": STYLES, "word/_rels/document.xml.rels": RELS, "word/document.xml": documentXml(blocks.join("")), "word/media/i.png": PNG, "word/footnotes.xml": FOOT }));
    const whole = await docxToMarkdown(bytes, LIMITS);
    if (/^(1\.|-) /m.test(whole)) listed++;
    for (const s of [1, 30, 200]) {
      const cut = await docxToMarkdown(bytes, LIMITS, s, s);
      if (cut !== whole) differing.push(k, s);
    }
  }
  expect(differing).toEqual([]);
  expect(listed).toBeGreaterThan(8);
}, 300_000);
