import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { stemEnglish } from "../../src/store/english-stem.ts";
import { ftsTerms } from "../../src/store/fts-terms.ts";
import { rankScoped, TextStats } from "../../src/store/scoped-bm25.ts";
import { ftsTermsPrevious, stemEnglishPrevious } from "../../scripts/lib/fts-terms-previous.ts";
import { rankScopedPrevious, TextStatsPrevious } from "../../scripts/lib/scoped-bm25-previous.ts";
import { mulberry32 } from "../helpers/seeded.ts";

// The terms are split by a single-pass scanner with a fixed-size token cache now, and counted and
// scored on typed hash tables; they must stay exactly what the simpler version made (kept as
// scripts/lib/fts-terms-previous.ts and scoped-bm25-previous.ts), which
// lance-fts-terms.test.ts checks against LanceDB's index itself.

const tricky = [
  "", " ", "a", "A", "the", "The THE tHe", "don't won't it's o'clock", "co-operate e-mail well-being",
  "café CAFÉ cafe\u0301 naïve résumé Ærøskøbing straße STRASSE œuvre ﬁnance ﬂow Ǆemal ı İstanbul",
  "東京 日本語のテキスト 中文分词 한국어", "Ελληνικά ΣΟΦΊΑ русский текст", "١٢٣ ٤٥ ½ ² ⅷ Ⅻ 3rd e12 2024-11-27 0x1F",
  "𝐀𝐁𝐂 𝟏𝟐 😀emoji😀 a😀b \ud800lone \udc00low x\ud83d", "tab\there\nnewline\r\nvertical\u000bbar|pipe_underscore",
  "x".repeat(39), "x".repeat(40), "x".repeat(41), "é".repeat(19) + "e", "é".repeat(20), "é".repeat(19) + "ab",
  "中".repeat(13), "中".repeat(13) + "a", "中".repeat(14), "€".repeat(14), "😀".repeat(9) + "abc", "a" + "𝐀".repeat(9) + "bc", "𝐀".repeat(10),
  "having being itself ourselves yourselves does doing", "generously communication arsenal skies dying news",
  "Running RUNNERS ran ADDED hopping agreed feed", "ÀÉÎÕÜ àéîõü Ððþþ łŁ đĐ ŋ ħ ŧ", "ǅ ǈ ǋ ﬀ ﬃ ﬅ ŉ ẞ",
  "Mc'Donald’s “quoted” ‘single’ — dash – en … ellipsis", "\u00a0non\u00a0breaking\u2003em\u2028line",
  "ab\u0301c d\u0308e", "ⓐⓑⓒ ①②③ ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３", "ª º ¹ ² µ",
];

test("tricky texts: unicode, accents, ligatures, CJK, digits, apostrophes, hyphens, the 40-byte edge, stop words, empty", () => {
  for (const text of tricky) expect([text, ftsTerms(text)]).toEqual([text, ftsTermsPrevious(text)]);
  // Once more, with every token now cached.
  for (const text of tricky) expect([text, ftsTerms(text)]).toEqual([text, ftsTermsPrevious(text)]);
});

const PIECES = [
  "a", "e", "i", "o", "u", "y", "Y", "s", "t", "l", "ing", "ed", "ly", "ies", "sses", "ation", "ness", "ful", "ize", "ment",
  "é", "É", "ß", "æ", "ø", "ł", "ı", "İ", "ﬁ", "東", "ア", "ж", "Σ", "٣", "½", "😀", "𝐀", "\u0301", "\ud800", " ", "  ", "'", "’",
  "-", "_", ".", ",", "\n", "\t", "0", "7", "the", "don", "generous", "commun", "x".repeat(12), "é".repeat(7),
];

test("a few thousand random strings from pieces the splitter and the stemmer treat specially", () => {
  const rand = mulberry32(7);
  for (let k = 0; k < 4000; k++) {
    let text = "";
    const n = 1 + Math.floor(rand() * 30);
    for (let i = 0; i < n; i++) text += PIECES[Math.floor(rand() * PIECES.length)]!;
    expect([text, ftsTerms(text)]).toEqual([text, ftsTermsPrevious(text)]);
  }
});

test("random code points, any plane", () => {
  const rand = mulberry32(11);
  for (let k = 0; k < 2000; k++) {
    let text = "";
    const n = 1 + Math.floor(rand() * 20);
    for (let i = 0; i < n; i++) {
      const r = rand();
      const cp = r < 0.4 ? 32 + Math.floor(rand() * 95) : r < 0.8 ? 0x80 + Math.floor(rand() * 0x2f80) : Math.floor(rand() * 0x110000);
      text += cp >= 0xd800 && cp <= 0xdfff && rand() < 0.5 ? String.fromCharCode(cp) : String.fromCodePoint(cp);
    }
    expect([text, ftsTerms(text)]).toEqual([text, ftsTermsPrevious(text)]);
  }
});

test("the stemmer stems as before: the README's words and random words built from suffixes", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8").toLowerCase();
  const words = new Set(readme.match(/[a-z]+/g));
  const rand = mulberry32(13);
  const parts = ["y", "a", "e", "i", "o", "u", "b", "c", "d", "l", "s", "t", "gener", "commun", "arsen", "ss", "ies", "ied", "us",
    "eed", "eedly", "ing", "ingly", "ed", "edly", "at", "bl", "iz", "bb", "tt", "li", "ogi", "tional", "enci", "anci", "abli",
    "entli", "izer", "ization", "ational", "ation", "ator", "alism", "aliti", "alli", "fulness", "ousli", "ousness", "iveness",
    "iviti", "biliti", "bli", "fulli", "lessli", "alize", "icate", "iciti", "ical", "ful", "ness", "ative", "al", "ance", "ence",
    "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion", "sion", "tion", "ll", "é"];
  for (let k = 0; k < 20000; k++) {
    let w = "";
    for (let n = 1 + Math.floor(rand() * 4); n > 0; n--) w += parts[Math.floor(rand() * parts.length)];
    words.add(w);
  }
  const differ = [...words].filter((w) => stemEnglish(w) !== stemEnglishPrevious(w));
  expect(differ).toEqual([]);
});

test("a flood of unique words evicts from the cache without changing any term", () => {
  const rand = mulberry32(3);
  const words = Array.from({ length: 100_000 }, (_, i) => (rand() < 0.5 ? "Wörd" : "word") + i.toString(36) + ["ing", "ed", "s", "ly"][i % 4]);
  const text = words.join(" ");
  expect(ftsTerms(text)).toEqual(ftsTermsPrevious(text));
  expect(ftsTerms(text)).toEqual(ftsTermsPrevious(text));
});

/** A row removed as the driver removes it: its terms counted on their own, then subtracted. */
function removeRow(stats: TextStats, orgId: string, text: string): void {
  const gone = new TextStats();
  gone.add(orgId, text);
  stats.subtract(gone);
}

test("counts and scores are the previous version's, through adds and removes", () => {
  const rand = mulberry32(5);
  const vocab = Array.from({ length: 400 }, (_, i) => ["claim", "Claims", "policy", "the", "runner", "é", "東京"][i % 7] + (i % 3 ? i.toString(36) : ""));
  const texts = Array.from({ length: 600 }, () => Array.from({ length: 1 + Math.floor(rand() * 60) }, () => vocab[Math.floor(vocab.length * rand() ** 2)]).join(" "));
  const now = new TextStats(), before = new TextStatsPrevious();
  for (const [i, t] of texts.entries()) { now.add(`o${i % 3}`, t); before.add(`o${i % 3}`, t); }
  const sorted = (s: TextStats | TextStatsPrevious) =>
    s.toJSON().orgs.map((o) => ({ ...o, terms: o.terms.map((t, i) => `${t}=${o.df[i]}`).sort(), df: [] }));
  // Removing most rows takes counts to zero all over the table (entries shifted back on removal).
  for (const [i, t] of texts.entries()) if (i % 4 !== 0) { removeRow(now, `o${i % 3}`, t); before.remove(`o${i % 3}`, t); }
  expect(sorted(now)).toEqual(sorted(before));
  for (const [i, t] of texts.entries()) if (i % 4 === 2) { now.add(`o${i % 3}`, t); before.add(`o${i % 3}`, t); }
  expect(sorted(now)).toEqual(sorted(before));
  for (const t of vocab) for (const o of ["o0", "o1", "o2"]) for (const term of ftsTerms(t)) expect(now.of(o).df(term)).toBe(before.of(o).df(term));
  expect(TextStats.fromJSON(now.toJSON()).terms).toBe(before.terms);
  for (let q = 0; q < 200; q++) {
    const query = Array.from({ length: 1 + Math.floor(rand() * (q % 10 ? 6 : 20)) }, () => vocab[Math.floor(vocab.length * rand())]).join(" ");
    const pool = texts.slice(q, q + 64).map((text, i) => ({ chunkId: `c${(i * 7) % 64}`, documentId: "d", corpusId: "c", text }));
    const org = `o${q % 3}`;
    expect(rankScoped(query, pool, now.of(org), 20)).toEqual(rankScopedPrevious(query, pool, before.of(org), 20));
  }
});

test("counts of a few terms in a small table, rows added and removed at random", () => {
  const rand = mulberry32(9);
  const vocab = Array.from({ length: 24 }, (_, i) => "term" + i.toString(36));
  const now = new TextStats(), before = new TextStatsPrevious();
  const live: string[] = [];
  for (let k = 0; k < 3000; k++) {
    if (live.length && rand() < 0.55) {
      const t = live.splice(Math.floor(rand() * live.length), 1)[0]!;
      removeRow(now, "o", t);
      before.remove("o", t);
    } else {
      const t = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => vocab[Math.floor(rand() * vocab.length)]).join(" ");
      live.push(t);
      now.add("o", t);
      before.add("o", t);
    }
    for (const w of vocab) expect(now.of("o").df(w)).toBe(before.of("o").df(w));
  }
});
