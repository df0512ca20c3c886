/**
 * The English (Porter2) stemmer, as LanceDB's full-text index applies it with its default
 * settings (`stem: true`, language English). Written here from the algorithm's published
 * description so that text ranking can be recomputed in process (fts-terms.ts): a word this
 * file stems differently from LanceDB would count as absent from a chunk LanceDB says holds it.
 * Input is one lower-cased token; the classic rule set is followed (R1 prefixes gener, commun,
 * arsen), which is what the index's stemmer implements (checked against it in the tests).
 */

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

/** The list split by last letter (each part still longest first), so a word is matched only against suffixes ending as it does. */
const byLastLetter = <T>(list: [string, T][]) => {
  const parts = new Map<string, [string, T][]>();
  for (const entry of list) {
    const last = entry[0][entry[0].length - 1]!;
    parts.set(last, [...(parts.get(last) ?? []), entry]);
  }
  return parts;
};
const STEP2_BY_LAST = byLastLetter(STEP2);
const STEP3_BY_LAST = byLastLetter(STEP3);
const STEP4_BY_LAST = byLastLetter(STEP4);

function longest<T>(w: string, parts: Map<string, [string, T][]>): [string, T] | undefined {
  const list = parts.get(w[w.length - 1]!);
  if (list) for (const entry of list) if (w.endsWith(entry[0])) return entry;
  return undefined;
}

function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (isVowel(w[i])) return true;
  return false;
}

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

export function stemEnglish(word: string): string {
  const exception = EXCEPTIONS.get(word);
  if (exception) return exception;
  if (word.length <= 2) return word;
  // y at the start or after a vowel is a consonant: marked Y until the end.
  let w = word[0] === "y" ? "Y" + word.slice(1) : word;
  for (let i = 1; i < w.length; i++) if (w[i] === "y" && isVowel(w[i - 1])) w = w.slice(0, i) + "Y" + w.slice(i + 1);
  const r1 = w.startsWith("gener") || w.startsWith("arsen") ? 5 : w.startsWith("commun") ? 6 : regionStart(w, 0);
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
  let s1b: string | undefined;
  for (const s of STEP1B) if (w.endsWith(s)) { s1b = s; break; }
  if (s1b === "eed" || s1b === "eedly") {
    if (inR1(s1b)) w = w.slice(0, -s1b.length) + "ee";
  } else if (s1b) {
    const stem = w.slice(0, -s1b.length);
    if (hasVowel(stem)) {
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
  const s2 = longest(w, STEP2_BY_LAST);
  if (s2 && inR1(s2[0])) {
    const [suffix, to] = s2;
    const before = w[w.length - suffix.length - 1];
    if (suffix === "ogi") { if (before === "l") w = w.slice(0, -3) + "og"; }
    else if (suffix === "li") { if (before && LI_ENDING.has(before)) w = w.slice(0, -2); }
    else w = w.slice(0, -suffix.length) + to;
  }

  // Step 3
  const s3 = longest(w, STEP3_BY_LAST);
  if (s3 && inR1(s3[0])) {
    const [suffix, to] = s3;
    if (to !== null) w = w.slice(0, -suffix.length) + to;
    else if (inR2(suffix)) w = w.slice(0, -suffix.length);
  }

  // Step 4
  const s4 = longest(w, STEP4_BY_LAST);
  if (s4 && inR2(s4[0])) {
    const suffix = s4[0];
    if (suffix !== "ion") w = w.slice(0, -suffix.length);
    else if (w[w.length - 4] === "s" || w[w.length - 4] === "t") w = w.slice(0, -3);
  }

  // Step 5
  if (w.endsWith("e")) {
    if (inR2("e") || (inR1("e") && !shortSyllable(w, w.length - 1))) w = w.slice(0, -1);
  } else if (w.endsWith("ll") && inR2("l")) w = w.slice(0, -1);

  return w.includes("Y") ? w.replaceAll("Y", "y") : w;
}
