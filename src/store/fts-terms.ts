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

const TOKEN = /[\p{Alphabetic}\p{N}]+/gu;
const MAX_TOKEN_BYTES = 40;
const encoder = new TextEncoder();

/** Letters the decomposition below leaves alone but the index's folding spells in ASCII. */
const FOLD: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i", ŋ: "n", ħ: "h", ŧ: "t" };
const fold = (t: string) =>
  t.normalize("NFKD").replace(/[ßæœøłđðþıŋħŧ]/g, (c) => FOLD[c] ?? c).replace(/[^\p{Alphabetic}\p{N}]+/gu, "").replace(/\p{M}+/gu, "");

/**
 * A token's term, or "" when the index drops it. Cached: a query rescores thousands of chunks
 * made of the same few thousand words, and stemming is most of the cost.
 */
const cache = new Map<string, string>();
const CACHE_MAX = 200_000;

function term(token: string): string {
  let t = cache.get(token);
  if (t !== undefined) return t;
  const ascii = !/[^\x00-\x7f]/.test(token);
  if ((ascii ? token.length : encoder.encode(token).length) >= MAX_TOKEN_BYTES) t = "";
  else {
    const stem = stemEnglish(token.toLowerCase());
    t = STOP_WORDS.has(stem) ? "" : ascii ? stem : fold(stem);
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(token, t);
  return t;
}

const isAsciiWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

/**
 * Calls `each` with every term of the text, in order. ASCII is split by hand: the Unicode
 * pattern costs most of a query's rescoring on thousands of chunks; a text with any other
 * character takes the pattern.
 */
export function forEachTerm(text: string, each: (term: string) => void): void {
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (c > 127) {
      for (const m of text.matchAll(TOKEN)) {
        const t = term(m[0]);
        if (t) each(t);
      }
      return;
    }
  }
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (isAsciiWordChar(c)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      const t = term(text.slice(start, i));
      if (t) each(t);
      start = -1;
    }
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
