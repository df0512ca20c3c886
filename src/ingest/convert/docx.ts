import mammoth from "mammoth";
import { stderrLogger } from "../../context.ts";
import { briefMessage, ConversionError } from "./errors.ts";
import { htmlToMarkdown } from "./html-to-markdown.ts";
import { ZipArchive, type ZipLimits } from "./zip.ts";

/** DOCX → mammoth HTML → markdown, after the archive has been vetted against the zip limits. */
export async function docxToMarkdown(bytes: Uint8Array, limits: ZipLimits): Promise<string> {
  const zip = new ZipArchive(bytes, limits);
  if (!zip.entries.has("word/document.xml")) throw new ConversionError("the DOCX has no word/document.xml part");
  zip.verifyAll();
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { file: mammothFile(zip) } as unknown as Parameters<typeof mammoth.convertToHtml>[0],
      // images carry no text for indexing; skipping them avoids building huge data: URIs
      { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
    );
    html = result.value;
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    stderrLogger.error("mammoth could not read a DOCX", { error: String((err as Error)?.stack ?? err).slice(0, 4000) });
    throw new ConversionError(mammothReason(err));
  }
  return htmlToMarkdown(html, limits.maxUncompressedBytes);
}

/**
 * mammoth reads parts through this (its `file` input) instead of unzipping the bytes itself: it
 * follows relationships to parts of any name, and so each one it reads as text is decoded in its
 * declared encoding and checked for a DTD (ZipArchive.readText), never seen by its XML parser first.
 */
function mammothFile(zip: ZipArchive) {
  const bytesOf = (name: string) => {
    const b = zip.read(name);
    if (!b) throw new ConversionError(`the DOCX refers to a part ${name} that it does not contain`);
    return b;
  };
  return {
    exists: (name: string) => zip.entries.has(name),
    read: async (name: string, encoding?: string) => {
      if (encoding === "base64") return Buffer.from(bytesOf(name)).toString("base64");
      if (encoding) return zip.readText(name) ?? bytesOf(name); // bytesOf throws: the part is missing
      return bytesOf(name);
    },
    write: () => { throw new ConversionError("the DOCX cannot be modified"); },
    toArrayBuffer: () => { throw new ConversionError("the DOCX cannot be modified"); },
  };
}

/** mammoth's errors are its XML parser's ("[xmldom error]\tentity not found:&c;"): said in words here, kept whole in the log. */
function mammothReason(err: unknown): string {
  // mammoth recurses over the XML tree: a well-formed part nested thousands deep exhausts the stack.
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return "could not read DOCX: its content is nested too deeply (thousands of levels of tables or other containers)";
  }
  const msg = briefMessage(err);
  if (/xmldom/i.test(msg)) return "could not read DOCX: one of its parts is not well-formed XML";
  return "could not read DOCX: the file is damaged or not a Word document";
}
