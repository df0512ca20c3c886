/**
 * The terms LanceDB's full-text index makes of a text with `lancedb.Index.fts()` defaults
 * (LanceDB 0.39, as the table's index details list them: tokenizer "simple", max_token_length
 * 40, lower_case, stem, remove_stop_words, ascii_folding, language English), in the order the
 * index applies its filters, which the tests pin down against the index itself: split on
 * every character that is neither letter nor number, drop tokens of 40 UTF-8 bytes or more,
 * lower-case, stem, drop stop words (so a word whose stem is a stop word goes: "having"), fold
 * to ASCII. Text ranking is rescored in process from these terms (scoped-bm25.ts), so they must
 * be the index's: a term counted here that the index does not hold, or the reverse, would shift
 * a chunk's score.
 *
 * This runs on every chunk written, every chunk removed and every candidate of a text query, so
 * it is written for speed: one pass over the character codes that finds the tokens, counts their
 * UTF-8 bytes and hashes them as it goes, and a fixed-size cache from token to term that is
 * probed without cutting the token out of the text. Only a token the cache lacks becomes a
 * string and goes through the filters. test/ingest/fts-terms-same-as-previous.test.ts holds it
 * to the simpler version it replaced (scripts/lib/fts-terms-previous.ts).
 */
import { stemEnglish } from "./english-stem.ts";

/**
 * The index's English stop words. Words with an apostrophe are left out: the tokenizer splits
 * them ("don't" gives "don" and "t", both here).
 */
const STOP_WORDS = new Set(
  ("i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
    "about against between into through during before after above below to from up down in out on off over under again " +
    "further then once here there when where why how all any both each few more most other some such no nor not only own " +
    "same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven " +
    "isn ma mightn mustn needn shan shouldn wasn weren won wouldn").split(" "),
);

const MAX_TOKEN_BYTES = 40;

/** Letters the decomposition below leaves alone but the index's folding spells in ASCII. */
const FOLD: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i", ŋ: "n", ħ: "h", ŧ: "t" };
const fold = (t: string) =>
  t.normalize("NFKD").replace(/[ßæœøłđðþıŋħŧ]/g, (c) => FOLD[c] ?? c).replace(/[^\p{Alphabetic}\p{N}]+/gu, "").replace(/\p{M}+/gu, "");

/** The term of a token under the byte limit, or "" when the index drops it. */
function termOf(token: string, ascii: boolean): string {
  const stem = stemEnglish(token.toLowerCase());
  return STOP_WORDS.has(stem) ? "" : ascii ? stem : fold(stem);
}

/**
 * Which code points the tokenizer keeps (Unicode Alphabetic or Number), one byte each: 0 not
 * yet asked, 1 kept, 2 a separator. Filled 256 code points at a time from the pattern, the first
 * time a text holds one of them; ASCII is filled at once.
 */
const WORD_CHAR = /^[\p{Alphabetic}\p{N}]$/u;
let classes: Uint8Array | undefined;
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ? 1 : 0;

function isWordCodePoint(cp: number): boolean {
  const table = (classes ??= new Uint8Array(0x110000));
  let k = table[cp]!;
  if (k === 0) {
    const from = cp & ~0xff;
    for (let c = from; c < from + 256; c++) table[c] = WORD_CHAR.test(String.fromCodePoint(c)) ? 1 : 2;
    k = table[cp]!;
  }
  return k === 1;
}

/**
 * Token → term, for tokens under the byte limit (at most 39 UTF-16 units). Two-way set
 * associative over a fixed number of slots: memory stays the same whatever the text (a flood of
 * unique words only evicts), and a token's characters are kept in a typed array rather than as a
 * string cut from the text, which would keep the whole text alive. The terms are fresh strings
 * for the same reason: they are kept as keys of the statistics.
 */
const SLOTS = 1 << 16;
const WAYS = 8;
const KEY_UNITS = 40;
let keyUnits: Uint16Array | undefined;
const keyLength = new Uint8Array(SLOTS); // 0: empty
const keyHash = new Int32Array(SLOTS);
const slotTerm: string[] = new Array<string>(SLOTS).fill("");
const slotTermHash = new Int32Array(SLOTS);
const nextWay = new Uint8Array(SLOTS / WAYS);

/** A hash of a term (FNV-1a over its UTF-16 units), which forEachTerm hands out with it. */
export function termHash(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193);
  return h;
}

/** The slot holding the token's term (found or filled). */
function lookup(text: string, start: number, end: number, hash: number): number {
  const units = (keyUnits ??= new Uint16Array(SLOTS * KEY_UNITS));
  const length = end - start;
  const first = hash & (SLOTS - WAYS);
  for (let s = first; s < first + WAYS; s++) {
    if (keyHash[s] !== hash || keyLength[s] !== length) continue;
    let at = s * KEY_UNITS, i = start;
    while (i < end && units[at] === text.charCodeAt(i)) { at++; i++; }
    if (i === end) return s;
  }
  // Missed: the token replaces the set's oldest entry (the ways are filled in turn).
  const set = first / WAYS;
  const s = first + nextWay[set]!;
  nextWay[set] = (nextWay[set]! + 1) % WAYS;
  const at = s * KEY_UNITS;
  let ascii = true;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    units[at + i - start] = c;
    if (c > 127) ascii = false;
  }
  const term = termOf(String.fromCharCode.apply(null, units.subarray(at, at + length) as unknown as number[]), ascii);
  keyLength[s] = length;
  keyHash[s] = hash;
  slotTerm[s] = term;
  slotTermHash[s] = termHash(term);
  return s;
}

/** Calls `each` with every term of the text, in order, and the term's termHash. */
export function forEachTerm(text: string, each: (term: string, hash: number) => void): void {
  const n = text.length;
  let start = -1, hash = 0, bytes = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    let word: boolean, size: number;
    if (c < 128) {
      word = ASCII_WORD[c] === 1;
      size = 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair is one code point, kept or split as one.
      word = isWordCodePoint(((c - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00) + 0x10000);
      if (word) {
        if (start < 0) { start = i; hash = 0x811c9dc5; bytes = 0; }
        hash = Math.imul(hash ^ c, 0x01000193);
        bytes += 2;
        i++;
        hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
        bytes += 2;
        continue;
      }
      size = 0;
      i++;
    } else {
      word = isWordCodePoint(c);
      size = c < 0x800 ? 2 : 3;
    }
    if (word) {
      if (start < 0) { start = i; hash = 0x811c9dc5; bytes = 0; }
      hash = Math.imul(hash ^ c, 0x01000193);
      bytes += size;
    } else if (start >= 0) {
      // i may have stepped over a pair; the token ends where the separator began.
      const end = size === 0 ? i - 1 : i;
      if (bytes < MAX_TOKEN_BYTES) {
        const s = lookup(text, start, end, hash);
        if (slotTerm[s]) each(slotTerm[s]!, slotTermHash[s]!);
      }
      start = -1;
    }
  }
  if (start >= 0 && bytes < MAX_TOKEN_BYTES) {
    const s = lookup(text, start, n, hash);
    if (slotTerm[s]) each(slotTerm[s]!, slotTermHash[s]!);
  }
}

/** The text's terms in order, repeats kept. */
export function ftsTerms(text: string): string[] {
  const out: string[] = [];
  forEachTerm(text, (t) => out.push(t));
  return out;
}

/**
 * Names the terms this module makes, for statistics saved to disk (lance.ts): a snapshot counted
 * with other terms (an older or newer build, whose stemmer, stop words or folding differ) must
 * be counted again, not taken. The terms of a probe of every rule, with a number to raise when a
 * change escapes the probe.
 */
const TERMS_REVISION = 1;
const PROBE = "Running runs ran easily fairly generously having the and DON'T café naïve Straße Ærøskøbing œuvre ł " +
  "İstanbul Ⅻ ２０２６ 12345 x_y a-b " + "long".repeat(10) + " " + "é".repeat(20) + " " + "é".repeat(19);
export const TERMS_ID = `${TERMS_REVISION}:${Bun.hash(ftsTerms(PROBE).join(" ") + "|" + [...STOP_WORDS].join(" ")).toString(36)}`;
