// builtin-extractive: answers with the passages' own sentences. Sentences are scored against the
// question with BM25 (embedder cosine breaks ties), the best few are quoted verbatim in passage
// order with [ref] markers. When the best sentence covers too little of the question's content
// words the answer says so in the request language, answered:false, cited:[].
// History is not used: the caller already folds it into retrieval; quoting stays about this question.
import { bm25 } from "./lexical.ts";
import { cosine, hashEmbed } from "./builtin-embed.ts";
import { notFoundMessage } from "./lang.ts";
import { clip, ellipsize, sentences } from "./text.ts";
import { approxTokenCount } from "./builtin-tokens.ts";
import type { Answerer, AnswerRequest, AnswerResult } from "./types.ts";

export const BUILTIN_ANSWER_ID = "builtin-extractive";

/** Share of the question's content terms the best sentence must contain. */
export const MIN_COVERAGE = 0.5;
const MAX_SENTENCES = 3;
/** Characters of the quoted sentences; a longer best sentence is cut (at a word) to fit. */
const MAX_CHARS = 900;

/**
 * Characters of one passage the answerer reads: the default chunk.max_characters, so a chunk of
 * the default size is read whole; past it a larger chunk's sentences are not quoted. The answerer
 * runs on the server's event loop, and it once spent 18 s there on one 51,000-character chunk.
 */
export const PASSAGE_CHARS = 10_000;
/**
 * Characters read over all the passages of a question, best-ranked first, so what is cut is the
 * lowest-ranked text: five chunks of the default size, or 8 (the default topK) of up to 6,250.
 * Sentences that share a word with the question cost about 0.05 ms each to rank, so this is
 * about 0.1 s of the event loop when they all do. Without it 100 passages of 30,000 characters
 * took 13 s.
 */
export const QUESTION_CHARS = 50_000;
/** A sentence whose BM25 score is above this always outranks one with none (the embedder adds at most ±0.01). */
const EMBED_NEEDED_BELOW = 0.03;

// A quoted sentence reads as prose: markdown block markers (list bullet, number, heading, quote)
// are dropped, which also lets the summary chunk's "- sentence" meet the chunk's "sentence".
const BLOCK_MARKER = /^(?:[-*•+]|\d+[.)]|#{1,6}|>)\s+/;

// A heading ("Leave policy") is not a sentence: quoted next to the sentence after it, it ran
// into it ("Leave policy Employees get …"). Headings are kept only when nothing else is left.
const titleLike = (t: string) => !/[.!?…:;"”»)]$/.test(t) && t.split(/\s+/).length <= 8;

interface Candidate { ref: number; passageIdx: number; pos: number; text: string; score: number; coverage: number }

export function extractiveAnswer(req: AnswerRequest): AnswerResult {
  const all: Candidate[] = [];
  let budget = QUESTION_CHARS;
  const read = req.passages.map((p) => {
    const text = clip(p.text, Math.min(PASSAGE_CHARS, budget));
    budget -= text.length;
    return text;
  });
  req.passages.forEach((p, passageIdx) => {
    sentences(read[passageIdx]!).forEach((s, pos) => {
      const text = s.replace(BLOCK_MARKER, "").trim();
      if (text) all.push({ ref: p.ref, passageIdx, pos, text, score: 0, coverage: 0 });
    });
  });
  const prose = all.filter((c) => !titleLike(c.text));
  const cands = prose.length ? prose : all;
  const promptTokens = approxTokenCount(req.question) + read.reduce((s, t) => s + approxTokenCount(t), 0);
  const { scores, coverage } = bm25(req.question, cands.map((c) => c.text));
  const q = hashEmbed(req.question);
  // Embedding is most of the cost, and a sentence without any of the question's terms is never
  // quoted (its coverage is 0): it needs no embedding unless the embedder could lift it above a
  // sentence that has some, which only a BM25 score that small allows.
  let minScored = Infinity;
  for (const s of scores) if (s > 0 && s < minScored) minScored = s;
  const embedAll = minScored < EMBED_NEEDED_BELOW;
  const similarity = new Map<string, number>(); // a sentence repeated across passages is embedded once
  const similar = (t: string) => similarity.get(t) ?? similarity.set(t, cosine(q, hashEmbed(t))).get(t)!;
  cands.forEach((c, i) => {
    c.coverage = coverage[i]!;
    c.score = scores[i]! === 0 && !embedAll ? 0 : scores[i]! + 0.01 * similar(c.text);
  });
  const ranked = [...cands].sort((a, b) => b.score - a.score);
  const best = ranked[0];
  if (!best || best.coverage < MIN_COVERAGE || scores.every((s) => s === 0)) {
    const text = notFoundMessage(req.lang);
    req.onToken?.(text);
    return { text, cited: [], promptTokens, completionTokens: approxTokenCount(text), model: BUILTIN_ANSWER_ID, answered: false };
  }
  best.text = ellipsize(best.text, MAX_CHARS);
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
