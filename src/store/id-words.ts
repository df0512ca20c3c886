/**
 * Ids as four 32-bit words, for the in-memory vector copy (vector-scan.ts), which holds a chunk
 * id and a document id per row: as JavaScript strings they cost several times the 16 bytes of
 * the UUID they spell. Only the canonical lower-case form (what store/ids.ts makes and the API
 * stores) is packed, so that formatting the words gives back the very string that was stored;
 * any other id is kept as a string by the caller, with words derived from a hash of it.
 */

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** The value of a lower-case hex digit's char code, or -1. */
const nibble = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1);

/** Eight hex digits of s from `at`, skipping one dash at `dash` (-1: none); NaN when not hex. */
function word(s: string, at: number, dash: number): number {
  let w = 0;
  for (let i = at, n = 0; n < 8; i++) {
    if (i === dash) {
      if (s.charCodeAt(i) !== 45) return NaN;
      continue;
    }
    const v = nibble(s.charCodeAt(i));
    if (v < 0) return NaN;
    w = (w << 4) | v;
    n++;
  }
  return w;
}

/**
 * Writes a canonical lower-case UUID's 128 bits to out[at…at+3] and returns true; false (out
 * untouched) for any other string.
 */
export function packUuid(s: string, out: Int32Array, at: number): boolean {
  if (s.length !== 36 || s.charCodeAt(8) !== 45 || s.charCodeAt(18) !== 45) return false; // 13 and 23: word()
  const a = word(s, 0, -1), b = word(s, 9, 13), c = word(s, 19, 23), d = word(s, 28, -1);
  if (a !== a || b !== b || c !== c || d !== d) return false; // NaN: not a hex digit
  out[at] = a;
  out[at + 1] = b;
  out[at + 2] = c;
  out[at + 3] = d;
  return true;
}

/** word() over UTF-8 bytes: eight hex digits of b from `at`, skipping one dash at `dash`; NaN when not hex. */
function byteWord(b: Uint8Array, at: number, dash: number): number {
  let w = 0;
  for (let i = at, n = 0; n < 8; i++) {
    if (i === dash) {
      if (b[i] !== 45) return NaN;
      continue;
    }
    const v = nibble(b[i]!);
    if (v < 0) return NaN;
    w = (w << 4) | v;
    n++;
  }
  return w;
}

/**
 * packUuid() of the UTF-8 bytes b[start…end), without making the string: the load of the
 * in-memory copy reads ids straight out of Arrow's buffers. A canonical UUID is ASCII, so its
 * bytes are its char codes and both functions accept exactly the same ids.
 */
export function packUuidBytes(b: Uint8Array, start: number, end: number, out: Int32Array, at: number): boolean {
  if (end - start !== 36 || b[start + 8] !== 45 || b[start + 18] !== 45) return false;
  const w0 = byteWord(b, start, -1), w1 = byteWord(b, start + 9, start + 13), w2 = byteWord(b, start + 19, start + 23), w3 = byteWord(b, start + 28, -1);
  if (w0 !== w0 || w1 !== w1 || w2 !== w2 || w3 !== w3) return false;
  out[at] = w0;
  out[at + 1] = w1;
  out[at + 2] = w2;
  out[at + 3] = w3;
  return true;
}

const hex8 = (w: number) => HEX[(w >>> 24) & 255]! + HEX[(w >>> 16) & 255]! + HEX[(w >>> 8) & 255]! + HEX[w & 255]!;

/** The canonical string of the UUID packed at words[at…]. */
export function unpackUuid(words: Int32Array, at: number): string {
  const b = hex8(words[at + 1]!), c = hex8(words[at + 2]!);
  return `${hex8(words[at]!)}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${hex8(words[at + 3]!)}`;
}

/** FNV-1a over the UTF-16 code units: the words of an id that is not a canonical UUID. */
export function stringHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** A 32-bit hash of four id words and a small integer (the organization). */
export function mixWords(a: number, b: number, c: number, d: number, org: number): number {
  let h = a ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35) ^ Math.imul(d ^ org, 0x27d4eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}
