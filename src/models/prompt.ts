// Prompt building and answer parsing shared by the LLM tiers (local GGUF and remote).
import { notFoundMessage } from "./lang.ts";
import type { AnswerRequest, Passage } from "./types.ts";

const LANG_NAMES: Record<string, string> = { en: "English", fr: "French", de: "German", es: "Spanish", it: "Italian", pt: "Portuguese", nl: "Dutch", ru: "Russian" };

export function answerSystemPrompt(req: AnswerRequest): string {
  const lang = LANG_NAMES[req.lang] ?? req.lang;
  return [
    req.system.trim(),
    `Answer the question using only the numbered passages. Cite the passages you use with their number in square brackets, like [1].`,
    `Answer in ${lang}.`,
    `If the passages do not contain the answer, reply exactly: "${notFoundMessage(req.lang)}"`,
  ].filter(Boolean).join("\n");
}

export function formatPassages(passages: Passage[]): string {
  return passages
    .map((p) => {
      const head = [`[${p.ref}]`, p.title, p.pages?.length ? `(p. ${p.pages.join(", ")})` : ""].filter(Boolean).join(" ");
      return `${head}\n${p.text.trim()}`;
    })
    .join("\n\n");
}

export function answerUserPrompt(req: AnswerRequest): string {
  return `Passages:\n\n${formatPassages(req.passages)}\n\nQuestion: ${req.question.trim()}`;
}

/** A passage cut shorter than this many tokens to fit is left out instead: a fragment that small rarely answers anything. */
const MIN_PASSAGE_TOKENS = 48;

/**
 * The passages, best first, that fit in `room` tokens of user message with the question around
 * them: whole ones while they fit, then the next one cut to the room left (its refs keep their
 * numbers, so citations of a shortened list still point at the right chunks).
 */
export async function fitPassages(
  req: AnswerRequest, room: number, count: (text: string) => Promise<number>, cut: (text: string, tokens: number) => Promise<string>,
): Promise<Passage[]> {
  let left = room - (await count(answerUserPrompt({ ...req, passages: [] })));
  const kept: Passage[] = [];
  for (const p of req.passages) {
    const whole = (await count(formatPassages([p]))) + 2; // and the blank line before the next one
    if (whole <= left) {
      kept.push(p);
      left -= whole;
      continue;
    }
    const head = (await count(formatPassages([{ ...p, text: "" }]))) + 2;
    if (left - head >= MIN_PASSAGE_TOKENS) kept.push({ ...p, text: await cut(p.text, left - head) });
    break;
  }
  return kept;
}

/** Refs cited as [n] or [n, m] in the text, restricted to refs that exist, in first-cited order. */
export function parseCitations(text: string, passages: Passage[]): number[] {
  const valid = new Set(passages.map((p) => p.ref));
  const out: number[] = [];
  for (const m of text.matchAll(/\[(\d+(?:\s*[,;]\s*\d+)*)\]/g)) {
    for (const n of m[1]!.split(/[,;]/).map((s) => Number(s.trim()))) {
      if (valid.has(n) && !out.includes(n)) out.push(n);
    }
  }
  return out;
}

/** The model follows the instruction to reply with the canned sentence when it cannot answer. */
export function saidNotFound(text: string, lang: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  const t = norm(text);
  return t.length === 0 || t.includes(norm(notFoundMessage(lang))) || t.includes(norm(notFoundMessage("en")));
}

/** Tokens a model may spend on a document summary, local or remote: a summary is one chunk and one vector. */
export const SUMMARY_MAX_TOKENS = 256;

export function summarySystemPrompt(lang: string): string {
  return `Summarise the document in ${LANG_NAMES[lang] ?? lang} as a short markdown bullet list under a heading. Use only facts from the document.`;
}

export function rerankPrompt(query: string, passage: string): string {
  return `Query: ${query}\n\nPassage: ${passage}\n\nOn a scale from 0 (irrelevant) to 10 (answers the query), how relevant is the passage to the query? Reply with the number only.`;
}

export function parseRelevance(text: string): number {
  const n = Number(text.match(/\d+(?:\.\d+)?/)?.[0]);
  return Number.isFinite(n) ? Math.max(0, Math.min(10, n)) : 0;
}
