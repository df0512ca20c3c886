import { stderrLogger } from "../../context.ts";
import { briefMessage, ConversionError } from "./errors.ts";
import { codeFence, escapeLineStart } from "./markdown-writer.ts";

export const UTF8_INVALID = "the file is not valid UTF-8 text";
export const NUL_BYTES = "the file contains NUL bytes, so it is not text";
export const FILE_EMPTY = "the file is empty";
export const NUL_BYTES_UTF16 =
  "the file contains NUL bytes: it looks like UTF-16 text without a byte-order mark, which is not read as text; save it as UTF-8, or as UTF-16 with a byte-order mark";

/** How much of a file's start tells UTF-16 apart. */
const UTF16_SAMPLE_BYTES = 4096;

/**
 * The refusal of a file with NUL bytes, given its first bytes. UTF-16 saved without a byte-order
 * mark (mostly Latin text, so every other byte is 0) had been told only that it "is not text", which
 * says nothing to someone holding a text file; it is named, with what to do.
 */
export function nulReason(head: Uint8Array): string {
  const n = Math.min(head.length, UTF16_SAMPLE_BYTES) & ~1;
  if (n < 8) return NUL_BYTES;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) even++;
    if (head[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  const looksLike = (zeros: number, other: number) => zeros >= pairs * 0.3 && other <= pairs * 0.01;
  return looksLike(odd, even) || looksLike(even, odd) ? NUL_BYTES_UTF16 : NUL_BYTES;
}

/**
 * Decodes text strictly: UTF-8 (a stray BOM is dropped), or UTF-16 when a byte-order mark says
 * so (what Windows editors write as "Unicode"). Commit-time sniffing runs exactly this check.
 */
export function decodeStrict(bytes: Uint8Array): string {
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : "utf-8";
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ConversionError(encoding === "utf-8" ? UTF8_INVALID : `the file starts with a ${encoding.toUpperCase()} byte-order mark but is not valid ${encoding.toUpperCase()} text`);
  }
  if (text.includes("\u0000")) throw new ConversionError(nulReason(bytes));
  return text;
}

/** decodeStrict, line ends normalised. */
export function decodeText(bytes: Uint8Array): string {
  return decodeStrict(bytes).replace(/\r\n?/g, "\n");
}

export function markdownToMarkdown(bytes: Uint8Array): string {
  return decodeText(bytes).trim() + "\n";
}

/** The first characters of the lines escapeLineStart may change: # > - * + | ` ~ and digits. */
const ESCAPED_LEAD = new Set([..."#>-*+|`~0123456789"].map((c) => c.charCodeAt(0)));

/**
 * Plain text is not markdown: lines that would read as structure are escaped; paragraphs are kept.
 * Lines are read in place and a run of lines needing no change is copied as one slice: the arrays
 * of every line, as read and as written, took 85 MB of text in 5 million lines to 935 MiB.
 */
export function plainToMarkdown(bytes: Uint8Array): string {
  const text = decodeText(bytes).trim();
  if (!text) return "";
  const n = text.length;
  // Pieces are joined into chunks now and then, so that many escaped lines do not make a string each to the end.
  const chunks: string[] = [];
  let parts: string[] = [];
  const put = (s: string) => {
    parts.push(s);
    if (parts.length >= 8192) {
      chunks.push(parts.join(""));
      parts = [];
    }
  };
  // [from, at): lines kept as they are, not yet copied.
  let from = 0;
  for (let at = 0; at <= n; ) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = n;
    // Told unchanged without a string of its own (a slice per line of millions is garbage the
    // collector lets pile up): nothing escapeLineStart escapes starts it and it ends in no space.
    const last = text.charCodeAt(end - 1);
    if (end === at || (!ESCAPED_LEAD.has(text.charCodeAt(at)) && last > 0x20 && last < 0x80)) {
      at = end + 1;
      continue;
    }
    const line = text.slice(at, end);
    const out = escapeLineStart(line.trimEnd());
    if (out !== line) {
      if (at > from) put(text.slice(from, at));
      put(end < n ? out + "\n" : out);
      from = end + 1;
    }
    at = end + 1;
  }
  if (from < n) put(text.slice(from));
  chunks.push(parts.join(""), "\n");
  return chunks.join("");
}

export function jsonToMarkdown(bytes: Uint8Array): string {
  const text = decodeText(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // The parser's own words ("JSON Parse error: Unexpected EOF") go to the log, not to statusMsg.
    stderrLogger.error("JSON.parse refused a document", { error: briefMessage(err) });
    throw new ConversionError(text.trim() === "" ? (text === "" ? FILE_EMPTY : "not valid JSON: the file holds only whitespace") : "not valid JSON");
  }
  // Indentation grows with depth, so deep nesting makes the pretty form quadratic in the input (a 60 KB
  // object nested 10,000 deep became hundreds of MB) and stringifying it can overflow the stack. Such
  // documents keep their own layout: the text is still the same JSON.
  const cost = prettyCost(text);
  const keep = cost.depth > MAX_PRETTY_DEPTH || cost.size > Math.max(MAX_PRETTY_GROWTH * text.length, MIN_PRETTY_BUDGET);
  const body = keep ? text.trim() : JSON.stringify(value, null, 2);
  const fence = codeFence(body);
  return `${fence}json\n${body}\n${fence}\n`;
}

const MAX_PRETTY_DEPTH = 64;
const MAX_PRETTY_GROWTH = 10;
// Small documents may grow more than tenfold when indented (`{"a":{"b":[1,2]}}`) and that costs nothing.
const MIN_PRETTY_BUDGET = 1024 * 1024;

/**
 * The nesting depth of valid JSON text and an upper estimate of the size of JSON.stringify(value, null, 2),
 * from one pass over the text: every bracket, comma and colon outside strings adds a line break and the
 * indentation of its depth (or the space after a colon).
 */
export function prettyCost(text: string): { depth: number; size: number } {
  let depth = 0;
  let maxDepth = 0;
  let size = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip the string, escapes included
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > maxDepth) maxDepth = depth;
      size += 1 + 2 * depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      size += 1 + 2 * Math.max(depth, 0);
    } else if (c === 0x2c) {
      size += 1 + 2 * depth;
    } else if (c === 0x3a) {
      size += 1;
    }
  }
  return { depth: maxDepth, size };
}
