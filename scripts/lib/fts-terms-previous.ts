/**
 * The term splitting as the version before the single-pass scanner ran it (src/store/fts-terms.ts
 * `forEachTerm`/`ftsTerms`, with src/store/english-stem.ts `stemEnglish` as it was), kept verbatim as
 * the baseline of bench-fts-terms.ts and as the oracle of the test that compares terms
 * (test/ingest/fts-terms-same-as-previous.test.ts): ASCII text split by hand, any other text by a
 * Unicode pattern, every token sliced out and looked up in a cache of up to 200,000 tokens that is
 * emptied when full.
 */

// The English stemmer as src/store/english-stem.ts had it.
const isVowel = (c: string | undefined) => c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || c === "y";

const EXCEPTIONS = new Map(Object.entries({
  skis: "ski", skies: "sky", dying: "die", lying: "lie", tying: "tie",
  idly: "idl", gently: "gentl", ugly: "ugli", early: "earli", only: "onli", singly: "singl",
  sky: "sky", news: "news", howe: "howe", atlas: "atlas", cosmos: "cosmos", bias: "bias", andes: "andes",
}));
const AFTER_1A = new Set(["inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed"]);

/** Suffix lists, longest first, so the first that ends the word is the longest (Snowball's `among`). */
const byLength = <T>(m: [string, T][]) => m.sort((a, b) => b[0].length - a[0].length);
const STEP1B = ["eedly", "ingly", "edly", "eed", "ing", "ed"];
const STEP2 = byLength<string | null>([
  ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["abli", "able"], ["entli", "ent"],
  ["izer", "ize"], ["ization", "ize"], ["ational", "ate"], ["ation", "ate"], ["ator", "ate"],
  ["alism", "al"], ["aliti", "al"], ["alli", "al"], ["fulness", "ful"], ["ousli", "ous"], ["ousness", "ous"],
  ["iveness", "ive"], ["iviti", "ive"], ["biliti", "ble"], ["bli", "ble"], ["ogi", "og"], ["fulli", "ful"],
  ["lessli", "less"], ["li", null],
]);
const STEP3 = byLength<string | null>([
  ["tional", "tion"], ["ational", "ate"], ["alize", "al"], ["icate", "ic"], ["iciti", "ic"], ["ical", "ic"],
  ["ful", ""], ["ness", ""], ["ative", null],
]);
const STEP4 = byLength<null>(
  ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion"].map((s) => [s, null]),
);
const LI_ENDING = new Set(["c", "d", "e", "g", "h", "k", "m", "n", "r", "t"]);
const DOUBLES = new Set(["bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"]);

const longest = <T>(w: string, list: [string, T][]): [string, T] | undefined => list.find(([s]) => w.endsWith(s));

/** After the first non-vowel that follows a vowel, from `from`. */
function regionStart(w: string, from: number): number {
  for (let i = from + 1; i < w.length; i++) if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1;
  return w.length;
}

/** The word ends, at `end`, in a short syllable. */
function shortSyllable(w: string, end = w.length): boolean {
  const a = w[end - 3], b = w[end - 2], c = w[end - 1];
  if (end === 2) return isVowel(b) && !isVowel(c);
  return end >= 3 && !isVowel(a) && isVowel(b) && !isVowel(c) && c !== "w" && c !== "x" && c !== "Y";
}

export function stemEnglishPrevious(word: string): string {
  const exception = EXCEPTIONS.get(word);
  if (exception) return exception;
  if (word.length <= 2) return word;
  // y at the start or after a vowel is a consonant: marked Y until the end.
  let w = word[0] === "y" ? "Y" + word.slice(1) : word;
  for (let i = 1; i < w.length; i++) if (w[i] === "y" && isVowel(w[i - 1])) w = w.slice(0, i) + "Y" + w.slice(i + 1);
  const prefix = /^(gener|commun|arsen)/.exec(w)?.[0];
  const r1 = prefix ? prefix.length : regionStart(w, 0);
  const r2 = regionStart(w, r1);
  const inR1 = (suffix: string) => w.length - suffix.length >= r1;
  const inR2 = (suffix: string) => w.length - suffix.length >= r2;

  // Step 1a
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ied") || w.endsWith("ies")) w = w.length > 4 ? w.slice(0, -2) : w.slice(0, -1);
  else if (w.endsWith("us") || w.endsWith("ss")) { /* kept */ }
  else if (w.endsWith("s")) {
    let vowelBefore = false;
    for (let i = 0; i < w.length - 2; i++) if (isVowel(w[i])) vowelBefore = true;
    if (vowelBefore) w = w.slice(0, -1);
  }
  if (AFTER_1A.has(w)) return w;

  // Step 1b
  const s1b = STEP1B.find((s) => w.endsWith(s));
  if (s1b === "eed" || s1b === "eedly") {
    if (inR1(s1b)) w = w.slice(0, -s1b.length) + "ee";
  } else if (s1b) {
    const stem = w.slice(0, -s1b.length);
    if ([...stem].some(isVowel)) {
      w = stem;
      if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
      // The index's stemmer keeps a double after a lone first vowel ("added" gives "add", not "ad").
      else if (DOUBLES.has(w.slice(-2))) { if (!(w.length === 3 && isVowel(w[0]))) w = w.slice(0, -1); }
      else if (r1 >= w.length && shortSyllable(w)) w += "e";
    }
  }

  // Step 1c
  const last = w[w.length - 1];
  if ((last === "y" || last === "Y") && w.length > 2 && !isVowel(w[w.length - 2])) w = w.slice(0, -1) + "i";

  // Step 2
  const s2 = longest(w, STEP2);
  if (s2 && inR1(s2[0])) {
    const [suffix, to] = s2;
    const before = w[w.length - suffix.length - 1];
    if (suffix === "ogi") { if (before === "l") w = w.slice(0, -3) + "og"; }
    else if (suffix === "li") { if (before && LI_ENDING.has(before)) w = w.slice(0, -2); }
    else w = w.slice(0, -suffix.length) + to;
  }

  // Step 3
  const s3 = longest(w, STEP3);
  if (s3 && inR1(s3[0])) {
    const [suffix, to] = s3;
    if (to !== null) w = w.slice(0, -suffix.length) + to;
    else if (inR2(suffix)) w = w.slice(0, -suffix.length);
  }

  // Step 4
  const s4 = longest(w, STEP4);
  if (s4 && inR2(s4[0])) {
    const suffix = s4[0];
    if (suffix !== "ion") w = w.slice(0, -suffix.length);
    else if (w[w.length - 4] === "s" || w[w.length - 4] === "t") w = w.slice(0, -3);
  }

  // Step 5
  if (w.endsWith("e")) {
    if (inR2("e") || (inR1("e") && !shortSyllable(w, w.length - 1))) w = w.slice(0, -1);
  } else if (w.endsWith("ll") && inR2("l")) w = w.slice(0, -1);

  return w.replaceAll("Y", "y");
}

// The splitting as src/store/fts-terms.ts had it.
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
    const stem = stemEnglishPrevious(token.toLowerCase());
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
export function forEachTermPrevious(text: string, each: (term: string) => void): void {
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
export function ftsTermsPrevious(text: string): string[] {
  const out: string[] = [];
  forEachTermPrevious(text, (t) => out.push(t));
  return out;
}
