import { inflateRawSync } from "node:zlib";
import { formatBytes } from "../units.ts";
import { ConversionError } from "./errors.ts";

// A minimal zip reader: the central directory is read and checked against the limits before a single byte
// is inflated, and every entry is inflated with an output cap equal to its declared size, so an archive
// cannot lie its way past the limits.

export interface ZipLimits { maxUncompressedBytes: number; maxZipEntries: number }

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const MAX32 = 0xffffffff;
/** How much of a central directory is read at a time (most directories fit in one read). */
const DIR_WINDOW = 64 * 1024;

const fail = (why: string): never => {
  throw new ConversionError(`invalid zip archive: ${why}`);
};

function u64(view: DataView, at: number): number {
  const v = view.getBigUint64(at, true);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

/**
 * Random access to an archive's bytes: a buffer held whole, or a file read only where the directory
 * and the wanted entries are (commit judges a 100 MB upload by a few KiB of it). Callers check
 * bounds against `size` before reading; `read` returns exactly `length` bytes or throws.
 */
export interface ByteSource {
  readonly size: number;
  read(offset: number, length: number): Uint8Array;
}

export const bufferSource = (bytes: Uint8Array): ByteSource => ({
  size: bytes.byteLength,
  read: (offset, length) => bytes.subarray(offset, offset + length),
});

const viewOf = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** The end-of-central-directory record's offset in the archive, searched in its last 64 KiB (the comment's maximum). */
function findEocd(src: ByteSource): number {
  const from = Math.max(0, src.size - 22 - 0xffff);
  const tail = viewOf(src.read(from, src.size - from));
  for (let i = tail.byteLength - 22; i >= 0; i--) {
    if (tail.getUint32(i, true) === EOCD_SIG) return from + i;
  }
  return fail("end of central directory not found");
}

export function readCentralDirectory(bytes: Uint8Array, limits: ZipLimits): ZipEntry[] {
  return readCentralDirectoryFrom(bufferSource(bytes), limits);
}

export function readCentralDirectoryFrom(src: ByteSource, limits: ZipLimits): ZipEntry[] {
  if (src.size < 22) fail("file too short");
  const eocdAt = findEocd(src);
  const eocd = viewOf(src.read(eocdAt, 22));
  let count = eocd.getUint16(10, true);
  let cdSize = eocd.getUint32(12, true);
  let cdOffset = eocd.getUint32(16, true);
  if (count === 0xffff || cdSize === MAX32 || cdOffset === MAX32) {
    const loc = eocdAt - 20;
    if (loc < 0) fail("zip64 locator missing");
    const locator = viewOf(src.read(loc, 20));
    if (locator.getUint32(0, true) !== ZIP64_LOCATOR_SIG) fail("zip64 locator missing");
    const z = u64(locator, 8);
    if (z + 56 > src.size) fail("zip64 directory missing");
    const z64 = viewOf(src.read(z, 56));
    if (z64.getUint32(0, true) !== ZIP64_EOCD_SIG) fail("zip64 directory missing");
    count = u64(z64, 32);
    cdSize = u64(z64, 40);
    cdOffset = u64(z64, 48);
  }
  if (count > limits.maxZipEntries) {
    throw new ConversionError(`archive has ${count} entries, more than the limit of ${limits.maxZipEntries} entries`);
  }
  if (cdOffset + cdSize > src.size) fail("central directory out of bounds");

  // Entries are bounded by the file, not by the declared directory size (as before this read
  // pieces), and read through a window that slides over the directory as they need it (comments
  // skipped unread). Reading from the directory's start to the end of the archive at once let a
  // lying offset (0, in a 95 MB upload) make commit read the whole file on the server's event loop
  // to find that the first entry was not one: four concurrent commits took the server up by
  // 190 MiB and held other requests for 170 ms.
  const rest = src.size - cdOffset;
  let winStart = 0;
  let win = src.read(cdOffset, Math.min(rest, DIR_WINDOW));
  let view = viewOf(win);
  /** Where `need` bytes from directory offset `p` are in the window (moved there if need be), or -1 past the file's end. */
  const at = (p: number, need: number): number => {
    if (p + need > rest) return -1;
    if (p < winStart || p + need > winStart + win.byteLength) {
      win = src.read(cdOffset + p, Math.min(rest - p, Math.max(need, DIR_WINDOW)));
      view = viewOf(win);
      winStart = p;
    }
    return p - winStart;
  };
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  let total = 0;
  let p = 0;
  for (let i = 0; i < count; i++) {
    let q = at(p, 46);
    if (q < 0 || view.getUint32(q, true) !== CENTRAL_SIG) fail("corrupt central directory");
    const nameLen = view.getUint16(q + 28, true);
    const extraLen = view.getUint16(q + 30, true);
    const commentLen = view.getUint16(q + 32, true);
    q = at(p, 46 + nameLen + extraLen);
    if (q < 0) fail("corrupt central directory");
    const e: ZipEntry = {
      name: decoder.decode(win.subarray(q + 46, q + 46 + nameLen)),
      flags: view.getUint16(q + 8, true),
      method: view.getUint16(q + 10, true),
      compressedSize: view.getUint32(q + 20, true),
      uncompressedSize: view.getUint32(q + 24, true),
      localHeaderOffset: view.getUint32(q + 42, true),
    };
    readZip64Extra(view, q + 46 + nameLen, extraLen, e);
    total += e.uncompressedSize;
    if (total > limits.maxUncompressedBytes) {
      throw new ConversionError(
        `archive declares more than ${formatBytes(limits.maxUncompressedBytes)} uncompressed, over the limit; refused before decompression`,
      );
    }
    entries.push(e);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

function readZip64Extra(view: DataView, start: number, len: number, e: ZipEntry): void {
  const end = start + len;
  for (let q = start; q + 4 <= end; ) {
    const id = view.getUint16(q, true);
    const size = view.getUint16(q + 2, true);
    if (id === 0x0001) {
      let r = q + 4;
      const take = () => {
        // The field's own size is the archive's word: never read past the extra block either.
        if (r + 8 > Math.min(q + 4 + size, end)) fail("corrupt zip64 field");
        const v = u64(view, r);
        r += 8;
        return v;
      };
      if (e.uncompressedSize === MAX32) e.uncompressedSize = take();
      if (e.compressedSize === MAX32) e.compressedSize = take();
      if (e.localHeaderOffset === MAX32) e.localHeaderOffset = take();
      return;
    }
    q += 4 + size;
  }
}

/** Inflates one entry, refusing output beyond its declared size. */
export function readEntry(bytes: Uint8Array, e: ZipEntry): Uint8Array {
  return readEntryFrom(bufferSource(bytes), e);
}

export function readEntryFrom(src: ByteSource, e: ZipEntry): Uint8Array {
  const h = e.localHeaderOffset;
  if (h + 30 > src.size) fail(`bad local header for ${e.name}`);
  const header = viewOf(src.read(h, 30));
  if (header.getUint32(0, true) !== LOCAL_SIG) fail(`bad local header for ${e.name}`);
  if (e.flags & 1) throw new ConversionError(`archive entry ${e.name} is encrypted`);
  const start = h + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  if (start + e.compressedSize > src.size) fail(`entry ${e.name} out of bounds`);
  const data = src.read(start, e.compressedSize);
  if (e.method === 0) {
    if (data.byteLength !== e.uncompressedSize) fail(`entry ${e.name} has inconsistent sizes`);
    return data;
  }
  if (e.method !== 8) throw new ConversionError(`archive entry ${e.name} uses unsupported compression method ${e.method}`);
  let out: Uint8Array;
  try {
    // Inflated into one buffer of the declared size, not into chunks joined at the end, which held the
    // part twice (a 190 MB part peaked at 370 MB). Deflate expands at most about 1032 times, so a
    // declared size past that is a lie and is not allocated ahead of the inflation failing.
    const chunkSize = Math.max(64, Math.min(e.uncompressedSize, e.compressedSize * 1032 + 1024));
    out = inflateRawSync(data, { maxOutputLength: Math.max(1, e.uncompressedSize), chunkSize });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ERR_BUFFER_TOO_LARGE") fail(`entry ${e.name} inflates beyond its declared size`);
    return fail(`entry ${e.name} cannot be inflated`);
  }
  if (out.byteLength !== e.uncompressedSize) fail(`entry ${e.name} inflates to a size other than declared`);
  return out;
}

const XML_NAME_RE = /\.(xml|rels|vml)$/i;
const DTD_RE = /<!DOCTYPE|<!ENTITY/i;

/** True when an XML part declares a DTD, which we never need and which enables XXE and entity bombs. */
export function hasDoctype(xml: Uint8Array): boolean {
  let text: string;
  if (xml[0] === 0xff && xml[1] === 0xfe) text = new TextDecoder("utf-16le").decode(xml);
  else if (xml[0] === 0xfe && xml[1] === 0xff) text = new TextDecoder("utf-16be").decode(xml);
  else text = new TextDecoder("latin1").decode(xml);
  return DTD_RE.test(text);
}

const doctypeRefused = (name: string) =>
  new ConversionError(`archive part ${name} contains a DOCTYPE declaration, which is refused for safety`);

/**
 * The encoding an XML part is written in, found as the XML specification says (appendix F): a
 * byte-order mark, UTF-16 without one, or else the encoding its declaration names (UTF-8 when none).
 */
function xmlEncoding(name: string, bytes: Uint8Array): string {
  const [a, b, c, d] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return "utf-8";
  if (a === 0xff && b === 0xfe) return "utf-16le";
  if (a === 0xfe && b === 0xff) return "utf-16be";
  if (a === 0x3c && b === 0x00 && c === 0x3f && d === 0x00) return "utf-16le";
  if (a === 0x00 && b === 0x3c && c === 0x00 && d === 0x3f) return "utf-16be";
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 256));
  const declared = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(head)?.[1];
  if (declared === undefined) return "utf-8";
  let encoding: string;
  try {
    encoding = new TextDecoder(declared).encoding;
  } catch {
    throw new ConversionError(`archive part ${name} declares the encoding "${declared.slice(0, 40)}", which cannot be decoded here; save it as UTF-8`);
  }
  // Such a declaration is itself written in UTF-16, so bytes that read as ASCII contradict it.
  if (encoding.startsWith("utf-16")) throw new ConversionError(`archive part ${name} declares UTF-16 but is not UTF-16 text`);
  return encoding;
}

/**
 * An XML part as text, decoded strictly in the encoding it declares: a byte that is not valid in that
 * encoding fails the document naming the part, as an invalid text file is refused, instead of reaching
 * the index as U+FFFD. The DOCTYPE check runs on the decoded text, so no encoding can hide it.
 */
export function decodeXmlPart(name: string, bytes: Uint8Array): string {
  const encoding = xmlEncoding(name, bytes);
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new ConversionError(`archive part ${name} is not valid ${encoding.toUpperCase()} text`);
  }
  if (DTD_RE.test(text)) throw doctypeRefused(name);
  return text;
}

export class ZipArchive {
  readonly entries = new Map<string, ZipEntry>();
  private readonly cache = new Map<string, Uint8Array>();

  constructor(private readonly bytes: Uint8Array, limits: ZipLimits) {
    for (const e of readCentralDirectory(bytes, limits)) this.entries.set(e.name, e);
  }

  /** The part's bytes, inflated within its declared size. */
  read(name: string): Uint8Array | null {
    const hit = this.cache.get(name);
    if (hit) return hit;
    const e = this.entries.get(name);
    if (!e) return null;
    const out = readEntry(this.bytes, e);
    this.cache.set(name, out);
    return out;
  }

  /**
   * The part as XML text (decodeXmlPart). Parts are found through relationships, whose targets may
   * have any name, so every part read as text is checked here, whatever it is called.
   */
  readText(name: string): string | null {
    const b = this.read(name);
    return b === null ? null : decodeXmlPart(name, b);
  }

  /**
   * readText without keeping the part's bytes once decoded (inflated again if read again): the
   * 190 MB of a large part's bytes were held beside its text for the whole conversion.
   */
  readTextOnce(name: string): string | null {
    const hit = this.cache.get(name);
    if (hit) return decodeXmlPart(name, hit);
    const e = this.entries.get(name);
    return e ? decodeXmlPart(name, readEntry(this.bytes, e)) : null;
  }

  /**
   * Inflates every entry once (bounded by the declared sizes), and refuses a DTD in any part named
   * as XML, even one that no converter reads.
   */
  verifyAll(): void {
    for (const name of this.entries.keys()) {
      if (name.endsWith("/")) continue;
      const out = this.read(name)!;
      this.cache.delete(name);
      if (XML_NAME_RE.test(name) && hasDoctype(out)) throw doctypeRefused(name);
    }
  }
}
