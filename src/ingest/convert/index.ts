import { DOCX, PPTX, XLSX, formatOf, mediaType } from "../formats.ts";
import { csvToMarkdown } from "./csv.ts";
import { docxToMarkdown } from "./docx.ts";
import { ConversionError } from "./errors.ts";
import { htmlToMarkdown } from "./html-to-markdown.ts";
import { neutralizeMarkers } from "./pages.ts";
import { pdfToMarkdown, type PageProgress } from "./pdf.ts";
import { decodeText, jsonToMarkdown, markdownToMarkdown, plainToMarkdown } from "./text.ts";
import { pptxToMarkdown } from "./pptx.ts";
import { xlsxToMarkdown } from "./xlsx.ts";

export { ConversionError } from "./errors.ts";
export { PAGE_MARKER_RE, pageMarker } from "./pages.ts";

export interface ConvertLimits { maxUncompressedBytes: number; maxZipEntries: number }
export interface Converted { markdown: string; nbPages: number }

export const DEFAULT_CONVERT_LIMITS: ConvertLimits = { maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 10_000 };

export async function convert(
  bytes: Uint8Array,
  contentType: string,
  limits?: Partial<ConvertLimits>,
  onPages?: PageProgress,
): Promise<Converted> {
  const lim = { ...DEFAULT_CONVERT_LIMITS, ...limits };
  const type = mediaType(contentType);
  if (!formatOf(type)) throw new ConversionError(`content type ${type || "(none)"} is not supported`);
  if (type === "application/pdf") {
    const pdf = await pdfToMarkdown(bytes, onPages);
    return { markdown: wellFormed(pdf.markdown), nbPages: pdf.nbPages };
  }
  const markdown = await convertUnpaged(bytes, type, lim);
  return { markdown: wellFormed(neutralizeMarkers(markdown)), nbPages: 0 };
}

/**
 * The text with every lone surrogate and NUL replaced by U+FFFD. Text files are refused for either,
 * but a parser can still produce them: mammoth turns a DOCX's `&#xD800;` and `&#0;` (not allowed in
 * XML) into exactly those characters, and the lone surrogate reached the chunks garbled with the
 * character after it ("lone \uD800 surrogate" was stored as "lone \u{10020}surrogate") and the NUL as is.
 */
function wellFormed(markdown: string): string {
  const text = markdown.isWellFormed() ? markdown : markdown.toWellFormed();
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\ufffd") : text;
}

async function convertUnpaged(bytes: Uint8Array, type: string, lim: ConvertLimits): Promise<string> {
  switch (type) {
    case DOCX: return docxToMarkdown(bytes, lim);
    case XLSX: return xlsxToMarkdown(bytes, lim);
    case PPTX: return pptxToMarkdown(bytes, lim);
    case "text/html": return htmlToMarkdown(decodeText(bytes), lim.maxUncompressedBytes);
    case "text/markdown": return markdownToMarkdown(bytes);
    case "text/plain": return plainToMarkdown(bytes);
    case "text/csv": return csvToMarkdown(bytes, lim.maxUncompressedBytes);
    case "application/json": return jsonToMarkdown(bytes);
  }
  throw new ConversionError(`content type ${type} is not supported`);
}
