// builtin-extractive: answers with the passages' own sentences. Sentences are scored against the
// question with BM25 (embedder cosine breaks ties), the best few are quoted verbatim in passage
// order with [ref] markers. When the best sentence covers too little of the question's content
// words the answer says so in the request language, answered:false, cited:[].
// History is not used: the caller already folds it into retrieval; quoting stays about this question.
import { bm25 } from "./lexical.ts";
import { cosine, hashEmbed } from "./builtin-embed.ts";
import { notFoundMessage } from "./lang.ts";
import { sentences } from "./text.ts";
import { approxTokenCount } from "./builtin-tokens.ts";
import type { Answerer, AnswerRequest, AnswerResult } from "./types.ts";

export const BUILTIN_ANSWER_ID = "builtin-extractive";

/** Share of the question's content terms the best sentence must contain. */
export const MIN_COVERAGE = 0.5;
const MAX_SENTENCES = 3;
const MAX_CHARS = 900;

// A quoted sentence reads as prose: markdown block markers (list bullet, number, heading, quote)
// are dropped, which also lets the summary chunk's "- sentence" meet the chunk's "sentence".
const BLOCK_MARKER = /^(?:[-*•+]|\d+[.)]|#{1,6}|>)\s+/;

// A heading ("Leave policy") is not a sentence: quoted next to the sentence after it, it ran
// into it ("Leave policy Employees get …"). Headings are kept only when nothing else is left.
const titleLike = (t: string) => !/[.!?…:;"”»)]$/.test(t) && t.split(/\s+/).length <= 8;

interface Candidate { ref: number; passageIdx: number; pos: number; text: string; score: number; coverage: number }

export function extractiveAnswer(req: AnswerRequest): AnswerResult {
  const all: Candidate[] = [];
  req.passages.forEach((p, passageIdx) => {
    sentences(p.text).forEach((s, pos) => {
      const text = s.replace(BLOCK_MARKER, "").trim();
      if (text) all.push({ ref: p.ref, passageIdx, pos, text, score: 0, coverage: 0 });
    });
  });
  const prose = all.filter((c) => !titleLike(c.text));
  const cands = prose.length ? prose : all;
  const promptTokens = approxTokenCount(req.question) + req.passages.reduce((s, p) => s + approxTokenCount(p.text), 0);
  const { scores, coverage } = bm25(req.question, cands.map((c) => c.text));
  const q = hashEmbed(req.question);
  cands.forEach((c, i) => {
    c.coverage = coverage[i]!;
    c.score = scores[i]! + 0.01 * cosine(q, hashEmbed(c.text));
  });
  const ranked = [...cands].sort((a, b) => b.score - a.score);
  const best = ranked[0];
  if (!best || best.coverage < MIN_COVERAGE || scores.every((s) => s === 0)) {
    const text = notFoundMessage(req.lang);
    req.onToken?.(text);
    return { text, cited: [], promptTokens, completionTokens: approxTokenCount(text), model: BUILTIN_ANSWER_ID, answered: false };
  }
  const picked: Candidate[] = [best];
  let chars = best.text.length;
  for (const c of ranked.slice(1)) {
    if (picked.length >= MAX_SENTENCES) break;
    if (c.score < best.score * 0.5 || c.coverage < MIN_COVERAGE / 2) break;
    if (chars + c.text.length > MAX_CHARS) continue;
    if (picked.some((p) => p.text === c.text)) continue; // same sentence in two chunks
    picked.push(c);
    chars += c.text.length;
  }
  picked.sort((a, b) => a.passageIdx - b.passageIdx || a.pos - b.pos);
  // Consecutive sentences from one passage share one marker at the end of the run.
  const parts: string[] = [];
  picked.forEach((c, i) => {
    const next = picked[i + 1];
    parts.push(next && next.ref === c.ref ? c.text : `${c.text} [${c.ref}]`);
  });
  const text = parts.join(" ");
  const cited = [...new Set(picked.map((c) => c.ref))];
  if (req.onToken) for (const piece of text.match(/\S+\s*/g) ?? []) req.onToken(piece);
  return { text, cited, promptTokens, completionTokens: approxTokenCount(text), model: BUILTIN_ANSWER_ID, answered: true };
}

export function createBuiltinAnswerer(): Answerer {
  return {
    id: BUILTIN_ANSWER_ID,
    async answer(req) {
      if (req.signal?.aborted) throw req.signal.reason ?? new Error("aborted");
      return extractiveAnswer(req);
    },
  };
}
