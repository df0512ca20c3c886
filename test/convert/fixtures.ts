import JSZip from "jszip";
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";

/** A text PDF: each page gets a big bold heading and a few lines of body text. */
export async function textPdf(pages: number, bodyLines = 3): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const body = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Chapter ${p}`, { x: 50, y: 780, size: 24, font: bold });
    for (let l = 0; l < bodyLines; l++) {
      page.drawText(`Body line ${l + 1} of page ${p} with some ordinary words.`, { x: 50, y: 740 - l * 14, size: 11, font: body });
    }
  }
  return doc.save();
}

/** A PDF whose only page content is a drawn rectangle: no text layer. */
export async function imageOnlyPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 300]);
  page.drawRectangle({ x: 20, y: 20, width: 200, height: 100, color: rgb(0.2, 0.4, 0.8) });
  doc.addPage([300, 300]);
  return doc.save();
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
export const DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";

export const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="${DOCX_MAIN}"/>
</Types>`;

const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`;

const DOC_RELS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
</Relationships>`;

const STYLES = `<?xml version="1.0" encoding="UTF-8"?>
<w:styles ${W}>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style>
</w:styles>`;

const NUMBERING = `<?xml version="1.0" encoding="UTF-8"?>
<w:numbering ${W}>
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>`;

const para = (text: string, style?: string, numId?: number) =>
  `<w:p><w:pPr>${style ? `<w:pStyle w:val="${style}"/>` : ""}${
    numId ? `<w:numPr><w:ilvl w:val="0"/><w:numId w:val="${numId}"/></w:numPr>` : ""
  }</w:pPr><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

export const DOCUMENT_XML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ${W}><w:body>
${para("Annual Report", "Heading1")}
${para("Intro paragraph with text.")}
${para("Goals", "Heading2")}
${para("First goal", "ListParagraph", 1)}
${para("Second goal", "ListParagraph", 1)}
${para("Step one", "ListParagraph", 2)}
${para("Step two", "ListParagraph", 2)}
<w:tbl><w:tr><w:tc>${para("Name")}</w:tc><w:tc>${para("Value")}</w:tc></w:tr><w:tr><w:tc>${para("a|b")}</w:tc><w:tc>${para("2")}</w:tc></w:tr></w:tbl>
</w:body></w:document>`;

export function docxParts(overrides: Record<string, string | Uint8Array | null> = {}): Record<string, string | Uint8Array> {
  const parts: Record<string, string | Uint8Array | null> = {
    "[Content_Types].xml": CONTENT_TYPES,
    "_rels/.rels": ROOT_RELS,
    "word/_rels/document.xml.rels": DOC_RELS,
    "word/styles.xml": STYLES,
    "word/numbering.xml": NUMBERING,
    "word/document.xml": DOCUMENT_XML,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== null)) as Record<string, string | Uint8Array>;
}

export async function zipOf(parts: Record<string, string | Uint8Array>): Promise<Uint8Array> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries(parts)) zip.file(name, data);
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

export const docx = (overrides?: Record<string, string | Uint8Array | null>) => zipOf(docxParts(overrides));

/** Rewrites the declared uncompressed size of every central-directory entry (a lying archive). */
export function patchDeclaredSizes(zip: Uint8Array, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let p = 0; p + 46 <= out.length; p++) {
    if (view.getUint32(p, true) !== 0x02014b50) continue;
    view.setUint32(p + 24, size, true);
    p += 45;
  }
  return out;
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export const utf8 = (s: string) => new TextEncoder().encode(s);
