import mammoth from "mammoth";
import { stderrLogger } from "../../context.ts";
import { briefMessage, ConversionError } from "./errors.ts";
import { htmlToMarkdown } from "./html-to-markdown.ts";
import { _findPartPaths as findPartPaths } from "mammoth/lib/docx/docx-reader.js";
import { joinListsAtCut, listStyleIds, NotesPart, planSlices, referencedIds, stitchNotes } from "./docx-slices.ts";
import { TextBudget } from "./text-budget.ts";
import { ZipArchive, type ZipLimits } from "./zip.ts";

/**
 * The length of document.xml's text above which its body is converted in slices of about this
 * length (docx-slices.ts). mammoth held about 150 bytes per character of it (2.1–2.4 GiB for 16 M).
 * The notes and comments parts count with it: mammoth reads them with every slice.
 */
export const DOCX_SLICE_CHARS = 1024 * 1024;

/** DOCX → mammoth HTML → markdown, after the archive has been vetted against the zip limits. */
export async function docxToMarkdown(
  bytes: Uint8Array, limits: ZipLimits, sliceChars = DOCX_SLICE_CHARS, maxSliceChars = 4 * sliceChars,
): Promise<string> {
  const zip = new ZipArchive(bytes, limits);
  if (!zip.entries.has("word/document.xml")) throw new ConversionError("the DOCX has no word/document.xml part");
  zip.verifyAll();
  const file = mammothFile(zip);
  // mammoth lists a note under every reference to it, so a few KiB of notes referred to thousands of
  // times expand into gigabytes: its HTML, of the whole or of all slices, is held to the zip's limit
  const budget = new TextBudget(limits.maxUncompressedBytes, "the DOCX's content would hold", "a footnote referred to many times over, or the like");
  const converted = async (f: MammothFile) => {
    const html = await docxHtml(f);
    budget.spend(html.length);
    return html;
  };
  const html = await mammothCall(async () => {
    const paths = await findPartPaths(file);
    // an embedded style map can make any element merge into the one before it: such a file is not cut
    if (zip.entries.has("mammoth/style-map")) return converted(file);
    // read in mammoth's order, so that of two faulty parts the one named is the one it would name
    const styles = zip.readText(paths.styles);
    const numbering = zip.readText(paths.numbering);
    // the notes and comments are read with each slice: they count with the body, and each slice gets only its own
    const notes = (["footnote", "endnote", "comment"] as const)
      .map((kind) => ({ kind, name: paths[`${kind}s`], part: NotesPart.of(zip.readText(paths[`${kind}s`])) }));
    const xml = zip.readText(paths.mainDocument);
    if (xml === null) return converted(file);
    const total = notes.reduce((n, { part }) => n + (part?.length ?? 0), xml.length);
    const share = xml.length / total;
    const plan = total > sliceChars
      ? planSlices(xml, Math.max(1, sliceChars * share), listStyleIds(numbering, styles), maxSliceChars * share)
      : null;
    if (!plan) return converted(file);
    const bodies: string[] = [];
    const lists: string[] = [];
    let refs = 0;
    for (const [start, end] of plan.slices) {
      const body = xml.slice(start, end);
      const parts = new Map([[paths.mainDocument, plan.prefix + body + plan.suffix]]);
      for (const { kind, name, part } of notes) if (part) parts.set(name, part.with(referencedIds(body, kind)));
      const html = stitchNotes(await converted(withParts(file, parts)), refs);
      // a forced cut inside a list: the list goes on in this slice instead of starting again at 1
      let out = html.body;
      const joined = bodies.length ? joinListsAtCut(bodies[bodies.length - 1]!, out) : null;
      if (joined) {
        bodies[bodies.length - 1] = joined.before;
        out = joined.after;
      }
      if (out) bodies.push(out);
      if (html.notes) lists.push(html.notes);
      refs += html.refs;
      Bun.gc(true);
    }
    return bodies.join("") + (lists.length ? `<ol>${lists.join("")}</ol>` : "");
  });
  return htmlToMarkdown(html, limits.maxUncompressedBytes);
}

type MammothFile = ReturnType<typeof mammothFile>;

async function docxHtml(file: MammothFile): Promise<string> {
  const result = await mammoth.convertToHtml(
    { file } as unknown as Parameters<typeof mammoth.convertToHtml>[0],
    // images carry no text for indexing; skipping them avoids building huge data: URIs
    { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
  );
  return result.value;
}

async function mammothCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    stderrLogger.error("mammoth could not read a DOCX", { error: String((err as Error)?.stack ?? err).slice(0, 4000) });
    throw new ConversionError(mammothReason(err));
  }
}

/** The file with some parts' text replaced (a slice of the main document, the notes it refers to). */
function withParts(file: MammothFile, parts: Map<string, string>): MammothFile {
  return { ...file, read: async (n: string, encoding?: string) => (encoding && parts.has(n) ? parts.get(n)! : file.read(n, encoding)) };
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
