// builtin-extractive-summary: lead sentences plus the most central ones (cosine to the
// document centroid in the hashed embedding space), kept in document order as a bullet list
// under a per-language heading. Text is extracted verbatim, so it stays in the document's language.
// A document without prose (a CSV, a spreadsheet, JSON: no sentence of 5 words or more outside its
// tables and code) is summarised by its first table rows ("Header: value; Header: value") and code
// lines ("name: Alice") instead; see summary-blocks.ts.
import { cosine, hashEmbed } from "./builtin-embed.ts";
import { detectLang, summaryTitle } from "./lang.ts";
import { ellipsize, sentences } from "./text.ts";
import { approxTokenCount } from "./builtin-tokens.ts";
import { splitBlocks } from "./summary-blocks.ts";
import type { Summariser, SummaryResult } from "./types.ts";

export const BUILTIN_SUMMARY_ID = "builtin-extractive-summary";
const LEAD = 2;
const MAX_BULLETS = 7;
/**
 * Characters of one bullet: two or three long sentences' worth. A document that is one
 * "sentence" (a 50 MB word, a CSV row of a million columns) made its whole 200,000-character
 * input a bullet, stored, embedded and served as the summary.
 */
export const BULLET_CHARS = 300;
/**
 * Characters of the whole summary: MAX_BULLETS bullets of BULLET_CHARS nearly fit. The summary is
 * stored as a chunk without being split, so this keeps it a fifth of the default chunk size
 * (10,000 characters).
 */
export const SUMMARY_CHARS = 2_000;
/**
 * Sentences the bullets are chosen from, the first ones: more than the summary input (200,000
 * characters) holds unless they average under 40 characters. Each is embedded and its vector
 * kept: 66,000 fragments ("A. A. A. …") took 1.3 s and 100 MB.
 */
const MAX_CANDIDATES = 5_000;

// stripMarkdown does by hand what a regex did where that regex could retry a long run once per
// character: a link regex on 1,000,000 unclosed "[" took about 50 s, and ^\s* on 40,000 blank
// lines 6.6 s. Each helper gives the regex's own result (noted above it) in one pass.
const SPACE = /\s/;
const isSpace = (c: string | undefined) => c !== undefined && SPACE.test(c);
const isLineEnd = (c: string | undefined) => c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029";

/** md.replace(/```[\s\S]*?```/g, "\n") */
function dropCodeBlocks(md: string): string {
  let out = "";
  let last = 0;
  for (;;) {
    const open = md.indexOf("```", last);
    const close = open < 0 ? -1 : md.indexOf("```", open + 3);
    // No closing fence after this one means none after any later opening fence either.
    if (close < 0) return out + md.slice(last);
    out += md.slice(last, open) + "\n";
    last = close + 3;
  }
}

/**
 * md.replace(/!\[[^\]]*\]\([^)]*\)/g, "") for images, md.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
 * for links. The next "]" and ")" are remembered: every "[" before the same "]" shares it.
 */
function dropLinkTargets(md: string, images: boolean): string {
  let out = "";
  let last = 0;
  let bracket = -1;
  let paren = -1;
  for (let p = md.indexOf(images ? "![" : "[", 0); p >= 0; p = md.indexOf(images ? "![" : "[", p + 1)) {
    const open = images ? p + 1 : p;
    if (bracket <= open) bracket = md.indexOf("]", open + 1);
    if (bracket < 0) break;
    if (md[bracket + 1] !== "(") continue;
    if (paren < bracket + 2) paren = md.indexOf(")", bracket + 2);
    if (paren < 0) break;
    out += md.slice(last, p) + (images ? "" : md.slice(open + 1, bracket));
    last = paren + 1;
    p = paren;
  }
  return out + md.slice(last);
}

/**
 * Where a match of ^\s*X (multiline) starts for each line start: the whitespace run after a line
 * start is shared by every line start inside it, so it is measured once and the run is skipped.
 * `match(p, q)` is told the line start p and the end q of its whitespace run, and returns the end
 * of the match or -1.
 */
function dropLineMatches(md: string, match: (p: number, q: number) => number): string {
  let out = "";
  let last = 0;
  let p = 0;
  while (p <= md.length) {
    if (p > 0 && !isLineEnd(md[p - 1])) {
      p++;
      continue;
    }
    let q = p;
    while (isSpace(md[q])) q++;
    const end = match(p, q);
    if (end < 0) {
      p = q + 1;
      continue;
    }
    out += md.slice(last, p);
    last = p = end;
    if (end === md.length) break;
  }
  return out + md.slice(last);
}

/** md.replace(/^\s*\|.*\|\s*$/gm, "") */
const dropTableRows = (md: string) =>
  dropLineMatches(md, (_p, q) => {
    if (md[q] !== "|") return -1;
    // .* stops at the line end; the last "|" before it must be followed by whitespace only.
    let lineEnd = q + 1;
    let bar = -1;
    while (lineEnd < md.length && !isLineEnd(md[lineEnd])) {
      if (md[lineEnd] === "|") bar = lineEnd;
      lineEnd++;
    }
    if (bar < 0) return -1;
    for (let i = bar + 1; i < lineEnd; i++) if (!isSpace(md[i])) return -1;
    // \s*$ runs on over blank lines and stops before the last line break of that whitespace.
    let end = lineEnd;
    let lastBreak = -1;
    while (isSpace(md[end])) {
      if (isLineEnd(md[end])) lastBreak = end;
      end++;
    }
    return end === md.length ? end : lastBreak;
  });

/** md.replace(/^\s*>\s?/gm, "") */
const dropQuoteMarks = (md: string) => dropLineMatches(md, (_p, q) => (md[q] !== ">" ? -1 : isSpace(md[q + 1]) ? q + 2 : q + 1));

/**
 * Emphasis and code marks, but not underscores inside a word (letters or digits on both sides),
 * which CommonMark never reads as emphasis: a summary of an API manual turned asn1_create_element
 * into "asn1createelement" and source_name into "sourcename".
 */
const EMPHASIS_MARKS = /(?<![\p{L}\p{N}])_{1,3}|_{1,3}(?![\p{L}\p{N}])|[*`]{1,3}/gu;

/**
 * Plain prose from markdown: drop code blocks, tables, images, link targets, emphasis, heading
 * marks and list markers. A list item becomes a block of its own: with its marker kept, a bullet
 * of the summary read "- - item", and a "* item", its star dropped as emphasis, ran into the item
 * before it. ([ \t] rather than \s: a marker never spans lines, so the match stays linear.)
 */
export function stripMarkdown(md: string): string {
  const prose = dropLinkTargets(dropLinkTargets(dropTableRows(dropCodeBlocks(md)), true), false);
  return dropQuoteMarks(
    prose
      .replace(/^#{1,6}\s+(.*)$/gm, "\n$1\n")
      .replace(/^[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+/gm, "\n")
      .replace(EMPHASIS_MARKS, ""),
  );
}

const HAS_WORD = /[\p{L}\p{N}]/u;

export function extractiveSummary(markdown: string, lang: string): SummaryResult {
  const blocks = splitBlocks(markdown, MAX_BULLETS, BULLET_CHARS);
  const all = sentences(stripMarkdown(blocks.prose));
  // Headings and fragments are poor bullets; keep sentences with at least 5 words.
  const sents = all.filter((s) => s.split(/\s+/).length >= 5);
  const title = `## ${summaryTitle(lang || detectLang(markdown))}`;
  const promptTokens = approxTokenCount(markdown);
  if (!sents.length && blocks.items.length) {
    // No sentence: a CSV, XLSX or JSON document, whose tables and code stripMarkdown drops. Its
    // summary was the bare heading, or "- Data" (a sheet's name) and "- | 7" (a row cut at the
    // summary input). Its first table rows and code lines say more than headings and fragments.
    const text = bulletList(title, blocks.items);
    return { text, promptTokens, completionTokens: approxTokenCount(text) };
  }
  // Without sentences the fragments are the bullets, those with a letter or digit: "- |" or "- )" says nothing.
  const pool = (sents.length ? sents : all.filter((s) => HAS_WORD.test(s))).slice(0, MAX_CANDIDATES);
  if (!pool.length) return { text: title + "\n", promptTokens, completionTokens: 2 };
  const vecs = pool.map((s) => hashEmbed(s));
  const centroid = new Float32Array(vecs[0]!.length);
  for (const v of vecs) for (let i = 0; i < v.length; i++) centroid[i]! += v[i]!;
  const want = Math.min(MAX_BULLETS, Math.max(3, Math.ceil(pool.length * 0.1)));
  const chosen = new Set<number>();
  for (let i = 0; i < Math.min(LEAD, pool.length); i++) chosen.add(i);
  const central = vecs.map((v) => cosine(v, centroid));
  const byCentrality = pool.map((_, i) => i).sort((a, b) => central[b]! - central[a]!);
  for (const i of byCentrality) {
    if (chosen.size >= want) break;
    chosen.add(i);
  }
  const text = bulletList(title, [...chosen].sort((a, b) => a - b).map((i) => pool[i]!));
  return { text, promptTokens, completionTokens: approxTokenCount(text) };
}

/** The heading and at most MAX_BULLETS bullets of BULLET_CHARS, as many as fit in SUMMARY_CHARS. */
function bulletList(title: string, lines: string[]): string {
  let text = `${title}\n\n`;
  for (const line of lines.slice(0, MAX_BULLETS)) {
    const bullet = `- ${ellipsize(line, BULLET_CHARS)}\n`;
    if (text.length + bullet.length > SUMMARY_CHARS) break;
    text += bullet;
  }
  return text;
}

export function createBuiltinSummariser(): Summariser {
  return { id: BUILTIN_SUMMARY_ID, summarise: async (md, lang) => extractiveSummary(md, lang) };
}
