import { isUtf8 } from "node:buffer";
import { decodeStrict, FILE_EMPTY, nulReason, UTF8_INVALID } from "./convert/text.ts";
import { DOCX, PPTX, XLSX, mediaType } from "./formats.ts";
import { ConversionError } from "./convert/errors.ts";
import { bufferSource, readCentralDirectoryFrom, readEntryFrom, type ByteSource } from "./convert/zip.ts";

// Checks that bytes are what their declared type says, cheaply and without trusting the content:
// zip parts are located through the central directory and at most 1 MiB of [Content_Types].xml is inflated.

const OOXML_MAIN: Record<string, { part: string; mainType: string }> = {
  [DOCX]: { part: "word/", mainType: "wordprocessingml.document.main+xml" },
  [XLSX]: { part: "xl/", mainType: "spreadsheetml.sheet.main+xml" },
  [PPTX]: { part: "ppt/", mainType: "presentationml.presentation.main+xml" },
};

const TEXT_TYPES = new Set(["text/plain", "text/markdown", "text/html", "text/csv", "application/json"]);
export const OLE2_OFFICE =
  "the file is a password-protected Office document or an old .doc, .xls or .ppt file, which cannot be read: save it without a password as .docx, .xlsx or .pptx";
const SNIFF_LIMITS = { maxUncompressedBytes: Number.MAX_SAFE_INTEGER, maxZipEntries: 100_000 };
/** 1 MiB stored, plus deflate's overhead for incompressible data (5 bytes a 64 KiB block), with room to spare. */
const MAX_CONTENT_TYPES_COMPRESSED = (1 << 20) + (1 << 16);

export function sniff(bytes: Uint8Array, contentType: string): string | null {
  const type = mediaType(contentType);
  if (type === "application/pdf") return sniffPdf(bytes);
  if (OOXML_MAIN[type]) return sniffArchive(bufferSource(bytes), type);
  if (TEXT_TYPES.has(type)) return sniffText(bytes);
  return `content type ${type} is not supported`;
}

function sniffPdf(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return FILE_EMPTY;
  // pdf.js tolerates leading junk before the header, within the first kilobyte
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return head.includes("%PDF-") ? null : "the file is not a PDF (no %PDF- header)";
}

/**
 * An Office upload judged through its zip directory and [Content_Types].xml only, read where they
 * are: commit passes a source over the stored file, so a 100 MB upload costs a few KiB of reads.
 */
export function sniffArchive(src: ByteSource, contentType: string): string | null {
  const { part, mainType } = OOXML_MAIN[mediaType(contentType)]!;
  if (src.size === 0) return FILE_EMPTY;
  const sig = src.size >= 4 ? src.read(0, 4) : new Uint8Array(0);
  if (!(sig[0] === 0x50 && sig[1] === 0x4b && sig[2] === 0x03 && sig[3] === 0x04)) {
    // What Office writes for a password-protected file, and for the pre-2007 .doc/.xls/.ppt formats.
    if (sig[0] === 0xd0 && sig[1] === 0xcf && sig[2] === 0x11 && sig[3] === 0xe0) return OLE2_OFFICE;
    return "the file is not a zip-based Office document (no zip signature)";
  }
  try {
    const entries = readCentralDirectoryFrom(src, SNIFF_LIMITS);
    const ct = entries.find((e) => e.name === "[Content_Types].xml");
    if (!ct) return "the zip has no [Content_Types].xml, so it is not an Office document";
    if (!entries.some((e) => e.name.startsWith(part))) return `the zip has no ${part} parts`;
    // Its compressed size too: read whole before inflating, a lie of tens of MB was read on the event loop.
    if (ct.uncompressedSize > 1 << 20 || ct.compressedSize > MAX_CONTENT_TYPES_COMPRESSED) return "[Content_Types].xml is implausibly large";
    const text = new TextDecoder().decode(readEntryFrom(src, ct));
    if (!text.includes(mainType)) return `the Office document does not declare the expected main part (${mainType})`;
    return null;
  } catch (err) {
    if (err instanceof ConversionError) return err.message;
    // Any other failure reading a hostile archive (an out-of-bounds read, say) is still a bad file.
    return "the zip archive is corrupt (its directory or an entry cannot be read)";
  }
}

/**
 * The converter's own rule (decodeStrict), so commit refuses exactly what conversion would.
 * UTF-8, the usual case, is checked without decoding: commit runs on the server's event loop, and
 * decoding a 50 MB upload into a 100 MB string there held every other request for about half a
 * second; `isUtf8` (simdutf) and a search for NUL read the bytes in a few milliseconds.
 */
function sniffText(bytes: Uint8Array): string | null {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!utf16) return sniffUtf8(bytes);
  try {
    decodeStrict(bytes);
  } catch (e) {
    if (e instanceof ConversionError) return e.message;
    throw e;
  }
  return null;
}

function sniffUtf8(bytes: Uint8Array): string | null {
  if (!isUtf8(bytes)) return UTF8_INVALID;
  // Buffer's indexOf is memchr; TypedArray.prototype.includes compares element by element.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0) !== -1 ? nulReason(bytes) : null;
}

/**
 * How much of an upload `sniff` reads for a type: the first KiB of a PDF, an Office file's zip
 * directory (sniffArchive), all of a text file; "whole" for a type sniff refuses anyway.
 */
export function sniffNeeds(contentType: string): "head" | "zip" | "text" | "whole" {
  const type = mediaType(contentType);
  if (type === "application/pdf") return "head";
  if (OOXML_MAIN[type]) return "zip";
  return TEXT_TYPES.has(type) ? "text" : "whole";
}

export const SNIFF_HEAD_BYTES = 1024;

/**
 * `sniff` of a text upload fed in pieces, for commit to read a large file a piece at a time
 * instead of holding it whole: same verdicts and words as sniffText. A UTF-8 character cut by a
 * piece's end is carried to the next piece, so every piece checked ends on a character boundary
 * (or is invalid anyway). A file that starts with a UTF-16 byte-order mark is kept whole and
 * checked by the strict decoder, as before: such files are rare and small.
 */
export class TextSniffer {
  private carry: Uint8Array = new Uint8Array(0);
  private first = true;
  private utf16?: Uint8Array[];
  // Invalid UTF-8 anywhere is reported before a NUL, as the whole-file check does.
  private invalid = false;
  private nul = false;
  /** The file's first bytes, which tell whether its NUL bytes are UTF-16's (nulReason). */
  private head: Uint8Array = new Uint8Array(0);

  push(piece: Uint8Array): void {
    if (this.invalid) return;
    let bytes = piece;
    if (this.carry.length) {
      bytes = new Uint8Array(this.carry.length + piece.length);
      bytes.set(this.carry);
      bytes.set(piece, this.carry.length);
      this.carry = new Uint8Array(0);
    }
    if (this.first) {
      // A byte-order mark needs two bytes to be seen.
      if (bytes.length < 2) {
        this.carry = bytes.slice();
        return;
      }
      this.first = false;
      this.head = bytes.slice(0, 4096);
      if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) this.utf16 = [];
    }
    if (this.utf16) {
      this.utf16.push(bytes.slice());
      return;
    }
    const cut = characterBoundary(bytes);
    this.carry = bytes.slice(cut);
    this.check(bytes.subarray(0, cut));
  }

  finish(): string | null {
    if (this.utf16) return sniffText(Buffer.concat(this.utf16));
    if (this.carry.length) this.check(this.carry);
    return this.invalid ? UTF8_INVALID : this.nul ? nulReason(this.head) : null;
  }

  private check(bytes: Uint8Array): void {
    const verdict = sniffUtf8(bytes);
    if (verdict === UTF8_INVALID) this.invalid = true;
    else if (verdict !== null) this.nul = true;
  }
}

/** Where the last complete UTF-8 character of `b` ends (a lead byte whose sequence runs past the end is cut off). */
function characterBoundary(b: Uint8Array): number {
  for (let i = b.length - 1; i >= Math.max(0, b.length - 4); i--) {
    const x = b[i]!;
    if ((x & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const need = x < 0x80 ? 1 : (x & 0xe0) === 0xc0 ? 2 : (x & 0xf0) === 0xe0 ? 3 : (x & 0xf8) === 0xf0 ? 4 : 1;
    return i + need > b.length ? i : b.length;
  }
  return b.length;
}
