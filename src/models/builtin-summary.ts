// builtin-extractive-summary: lead sentences plus the most central ones (cosine to the
// document centroid in the hashed embedding space), kept in document order as a bullet list
// under a per-language heading. Text is extracted verbatim, so it stays in the document's language.
import { cosine, hashEmbed } from "./builtin-embed.ts";
import { detectLang, summaryTitle } from "./lang.ts";
import { sentences } from "./text.ts";
import { approxTokenCount } from "./builtin-tokens.ts";
import type { Summariser, SummaryResult } from "./types.ts";

export const BUILTIN_SUMMARY_ID = "builtin-extractive-summary";
const LEAD = 2;
const MAX_BULLETS = 7;

/** Plain prose from markdown: drop code blocks, tables, images, link targets, emphasis and heading marks. */
export function stripMarkdown(md: string): string {
  return md
    .replace(/```[\s\S]*?```/g, "\n")
    .replace(/^\s*\|.*\|\s*$/gm, "")
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^#{1,6}\s+(.*)$/gm, "\n$1\n")
    .replace(/[*_`]{1,3}/g, "")
    .replace(/^\s*>\s?/gm, "");
}

export function extractiveSummary(markdown: string, lang: string): SummaryResult {
  const all = sentences(stripMarkdown(markdown));
  // Headings and fragments are poor bullets; keep sentences with at least 5 words.
  const sents = all.filter((s) => s.split(/\s+/).length >= 5);
  const pool = sents.length ? sents : all;
  const title = `## ${summaryTitle(lang || detectLang(markdown))}`;
  const promptTokens = approxTokenCount(markdown);
  if (!pool.length) return { text: title + "\n", promptTokens, completionTokens: 2 };
  const vecs = pool.map((s) => hashEmbed(s));
  const centroid = new Float32Array(vecs[0]!.length);
  for (const v of vecs) for (let i = 0; i < v.length; i++) centroid[i]! += v[i]!;
  const want = Math.min(MAX_BULLETS, Math.max(3, Math.ceil(pool.length * 0.1)));
  const chosen = new Set<number>();
  for (let i = 0; i < Math.min(LEAD, pool.length); i++) chosen.add(i);
  const byCentrality = pool.map((_, i) => i).sort((a, b) => cosine(vecs[b]!, centroid) - cosine(vecs[a]!, centroid));
  for (const i of byCentrality) {
    if (chosen.size >= want) break;
    chosen.add(i);
  }
  const bullets = [...chosen].sort((a, b) => a - b).map((i) => `- ${pool[i]}`);
  const text = `${title}\n\n${bullets.join("\n")}\n`;
  return { text, promptTokens, completionTokens: approxTokenCount(text) };
}

export function createBuiltinSummariser(): Summariser {
  return { id: BUILTIN_SUMMARY_ID, summarise: async (md, lang) => extractiveSummary(md, lang) };
}
