import mammoth from "mammoth";
import { briefMessage, ConversionError } from "./errors.ts";
import { htmlToMarkdown } from "./html-to-markdown.ts";
import { ZipArchive, type ZipLimits } from "./zip.ts";

/** DOCX → mammoth HTML → markdown, after the archive has been vetted against the zip limits. */
export async function docxToMarkdown(bytes: Uint8Array, limits: ZipLimits): Promise<string> {
  const zip = new ZipArchive(bytes, limits);
  if (!zip.entries.has("word/document.xml")) throw new ConversionError("the DOCX has no word/document.xml part");
  // inflating every part with capped output proves the declared sizes before mammoth inflates them again
  zip.verifyAll();
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      // images carry no text for indexing; skipping them avoids building huge data: URIs
      { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
    );
    html = result.value;
  } catch (err) {
    throw new ConversionError(`could not read DOCX: ${briefMessage(err)}`);
  }
  return htmlToMarkdown(html);
}
