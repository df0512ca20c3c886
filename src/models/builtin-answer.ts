// builtin-extractive: answers with the passages' own sentences. Sentences are scored against the
// question with BM25 (embedder cosine breaks ties), the best few are quoted verbatim in passage
// order with [ref] markers. When the best sentence covers too little of the question's content
// words the answer says so in the request language, answered:false, cited:[].
// History is not used: the caller already folds it into retrieval; quoting stays about this question.
import { bm25, contentTerms } from "./lexical.ts";
import { cosine, hashEmbed } from "./builtin-embed.ts";
import { notFoundMessage } from "./lang.ts";
import { clip, ellipsize, sentences } from "./text.ts";
import { approxTokenCount } from "./builtin-tokens.ts";
import { spellTowards } from "./typos.ts";
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
// are dropped, which also lets the summary chunk's "- sentence" meet the chunk's "sentence". All
// of them: the summary of a markdown list item is "- - item".
const BLOCK_MARKER = /^(?:(?:[-*•+]|\d+[.)]|#{1,6}|>)\s+)+/;
const LIST_ITEM = /^(?:[-*•+]|\d+[.)])\s/;
const MARKDOWN_HEADING = /^#{1,6}\s/;
/** Ends like a sentence (or a quotation or bracket that closes one). */
const SENTENCE_END = /[.!?…:;"”»)]$/;
/** Ends with a question mark (possibly inside a closing quote or bracket). */
const QUESTION_END = /\?["”»)]*$/;

// A heading ("Leave policy") is not a sentence: quoted next to the sentence after it, it ran
// into it ("Leave policy Employees get …"). But chunk text carries no markdown (the chunker keeps
// a title, a list item and a paragraph as plain blocks alike), so "short and unpunctuated" is
// also what a bullet ("Parking fee is 12 euros per month"), a slide line or a table row looks
// like, and those are often the only place a fact is written. Such a line is therefore judged by
// what it holds and where it stands (see `Kind`), not dropped for its shape alone.
const titleLike = (t: string) => !SENTENCE_END.test(t) && t.split(/\s+/).length <= 8;

/**
 * - `heading`: a markdown heading line, or a table's header row: quoted only when nothing else is left.
 * - `echo`: a short unpunctuated line with no content word the question lacks. It may be a heading
 *   that only repeats the question ("Leave policy" asked "What is the leave policy?") or a fact that
 *   confirms it ("Bike rack is free" asked "Is the bike rack free?"), so it is quoted only when no
 *   other unit covers enough of the question, and never beside another one.
 * - `lead`: a short unpunctuated line followed by a real sentence, as a plain-text heading is: kept,
 *   at half its score, so a sentence under it that matches as well is preferred, and quoted only
 *   as the best match, never as one more sentence beside it.
 * - `line`: a list item, a table row, or a short line that is none of the above (slide lines, a
 *   plain list): ranked like a sentence.
 * - `sentence`: anything else.
 */
type Kind = "heading" | "echo" | "lead" | "line" | "sentence";
/** Score factor of a `lead` line. */
const LEAD_WEIGHT = 0.5;

interface Unit { text: string; match: string; kind: Kind }

// A table row is a line that starts and ends with "|" (what the converters and the chunker
// write); a rule row holds only pipes, dashes, colons and spaces. Plain string tests, no regex
// backtracking over a long line.
const isRow = (line: string) => line.length > 1 && line.startsWith("|") && line.endsWith("|");
const isRule = (line: string) => line.includes("-") && /^[\s|:-]+$/.test(line);
const cells = (row: string) => row.slice(1, -1).trim();

/**
 * The quotable units of a passage, in order: its sentences, and one unit per table row (the
 * sentence splitter would join a whole table into one line). A data row is matched together with
 * its table's header ("Price" finds "| Coffee | 2 euros |") but quoted alone, without its outer
 * pipes. Linear in the length of the text.
 */
function units(text: string, questionTerms: Set<string>): Unit[] {
  const raw: { text: string; match: string; kind: Kind | null }[] = [];
  let prose: string[] = [];
  // A paragraph that is one question ("How do I reset my password?" in an FAQ) is a heading:
  // what answers it is the paragraph under it, whose sentences are matched together with the
  // question (as a table row is with its header) and quoted alone. Quoted as the answer, it only
  // repeated the user's question back.
  const flush = () => {
    if (!prose.length) return;
    let question = "";
    for (const block of prose.join("\n").split(/\n\s*\n/)) {
      const ss = sentences(block);
      if (!ss.length) continue;
      const asks = ss.length === 1 && QUESTION_END.test(ss[0]!) && !LIST_ITEM.test(ss[0]!);
      for (const s of ss) {
        const t = s.replace(BLOCK_MARKER, "").trim();
        if (!t) continue;
        // Any question (an FAQ's, or one the summary chunk repeated as a bullet) states nothing.
        const kind = QUESTION_END.test(t) || MARKDOWN_HEADING.test(s) ? "heading" : LIST_ITEM.test(s) ? "line" : null;
        raw.push({ text: t, match: question && !asks ? `${question} ${t}` : t, kind });
      }
      question = asks ? ss[0]!.replace(BLOCK_MARKER, "").trim() : "";
    }
    prose = [];
  };
  const lines = text.split("\n");
  let header = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!isRow(line)) {
      prose.push(lines[i]!);
      header = "";
      continue;
    }
    flush();
    if (isRule(line)) continue;
    const next = lines[i + 1]?.trim() ?? "";
    const t = cells(line);
    if (!t) continue;
    if (!header && isRule(next)) {
      header = t;
      raw.push({ text: t, match: t, kind: "heading" });
    } else raw.push({ text: t, match: header ? `${header} ${t}` : t, kind: "line" });
  }
  flush();
  return raw.map((u, i) => {
    if (u.kind) return u as Unit;
    if (!titleLike(u.text)) return { ...u, kind: "sentence" };
    if (contentTerms(u.text).every((t) => questionTerms.has(t))) return { ...u, kind: "echo" };
    const next = raw[i + 1];
    const lead = next && next.kind === null && !titleLike(next.text);
    return { ...u, kind: lead ? "lead" : "line" };
  });
}

/**
 * The values of a record line, "Header: value; Header: value" (how the summary writes a table
 * row), whose field names are its table's header: context, as a header is for a row, not words
 * of the line's own. Any other text is returned as it is.
 */
function recordValues(text: string): string {
  const fields = text.split("; ");
  if (fields.length < 2) return text;
  const values: string[] = [];
  for (const f of fields) {
    const colon = f.indexOf(": ");
    if (colon <= 0 || colon > 80) return text;
    values.push(f.slice(colon + 2));
  }
  return values.join(" ");
}

/** A file name as words: "employee-handbook_2024.pdf" → "employee handbook 2024". */
const nameWords = (title: string | undefined) => (title ?? "").replace(/\.[a-z0-9]{1,5}$/i, "").replace(/[-_.]+/g, " ");

interface Candidate { ref: number; passageIdx: number; pos: number; text: string; match: string; kind: Kind; score: number; coverage: number }

/**
 * One candidate per statement. A document's summary chunk restates its sentences and table rows
 * ("Product: Pro plan; SKU: NW-PRO-02" for the row "Pro plan | NW-PRO-02" under its header), so
 * one fact came back twice from two passages, and the summary's copy, which has no page, was
 * often the one cited: the answer then named no page and offered no preview of the page holding
 * it. Units holding the same content words (a row counted with its header) are one statement; it
 * is quoted from the passage that locates it on a page when one does, else from the first
 * passage (the best ranked). Linear in the candidates.
 */
function locatedOnce(cands: Candidate[], passages: AnswerRequest["passages"]): Candidate[] {
  const paged = (c: Candidate) => (passages[c.passageIdx]?.pages?.length ?? 0) > 0;
  const keep = new Map<string, Candidate>();
  const keyOf = new Map<Candidate, string>();
  for (const c of cands) {
    const terms = [...new Set(contentTerms(c.match))].sort();
    if (!terms.length) continue;
    const key = terms.join(" ");
    keyOf.set(c, key);
    const held = keep.get(key);
    if (!held || (!paged(held) && paged(c))) keep.set(key, c);
  }
  return cands.filter((c) => {
    const key = keyOf.get(c);
    const held = key === undefined ? c : keep.get(key)!;
    // the same statement twice in one passage stays (it is one passage to cite either way)
    return held === c || held.passageIdx === c.passageIdx;
  });
}

export function extractiveAnswer(req: AnswerRequest): AnswerResult {
  const all: Candidate[] = [];
  let budget = QUESTION_CHARS;
  const read = req.passages.map((p) => {
    const text = clip(p.text, Math.min(PASSAGE_CHARS, budget));
    budget -= text.length;
    return text;
  });
  // Matched with its slips read as the passages spell them; quoted text is never changed.
  const question = spellTowards(req.question, read);
  const questionTerms = new Set(contentTerms(question));
  req.passages.forEach((p, passageIdx) => {
    units(read[passageIdx]!, questionTerms).forEach((u, pos) => {
      all.push({ ref: p.ref, passageIdx, pos, ...u, score: 0, coverage: 0 });
    });
  });
  const quotable = all.filter((c) => c.kind !== "heading");
  const cands = locatedOnce(quotable.length ? quotable : all, req.passages);
  const promptTokens = approxTokenCount(req.question) + read.reduce((s, t) => s + approxTokenCount(t), 0);
  // The document's name ranks its sentences, as a table's header does its rows ("espresso machine"
  // asked of espresso-machine.pdf), but never covers the question: a sentence must still hold
  // enough of it by its own words to be quoted, or any sentence of a document whose name the
  // question repeats would answer it ("Who wrote the python style guide?").
  const names = req.passages.map((p) => nameWords(p.title));
  const { scores, coverage } = bm25(question, cands.map((c) => c.match), cands.map((c) => names[c.passageIdx]!));
  const q = hashEmbed(question);
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
    c.score = scores[i]! === 0 && !embedAll ? 0 : scores[i]! + 0.01 * similar(c.match);
    if (c.kind === "lead") c.score *= LEAD_WEIGHT;
  });
  const ranked = [...cands].sort((a, b) => b.score - a.score);
  const best = ranked.find((c) => c.kind !== "echo" && c.coverage >= MIN_COVERAGE && c.score > 0) ?? ranked[0];
  if (!best || best.coverage < MIN_COVERAGE || scores.every((s) => s === 0)) {
    const text = notFoundMessage(req.lang);
    req.onToken?.(text);
    return { text, cited: [], promptTokens, completionTokens: approxTokenCount(text), model: BUILTIN_ANSWER_ID, answered: false };
  }
  best.text = ellipsize(best.text, MAX_CHARS);
  const picked: Candidate[] = [best];
  let chars = best.text.length;
  // A unit quoted beside the best one must answer the question by its own words as the best one
  // must: one sharing a single word with it ("long" in "How long is parental leave?" found
  // "Passwords must be at least 14 characters long"), or a table row matched only through its
  // header (every row of a price table holds "price"), is another topic, not more of the answer.
  const qTerms = [...new Set(contentTerms(question))];
  const ownCoverage = (c: Candidate) => {
    const own = new Set(contentTerms(recordValues(c.text)));
    return qTerms.length ? qTerms.filter((t) => own.has(t)).length / qTerms.length : 0;
  };
  for (const c of ranked) {
    if (c === best || c.kind === "echo" || c.kind === "lead") continue;
    if (picked.length >= MAX_SENTENCES) break;
    if (c.score < best.score * 0.5 || c.coverage < MIN_COVERAGE / 2) break;
    if (ownCoverage(c) < MIN_COVERAGE) continue;
    if (chars + c.text.length > MAX_CHARS) continue;
    if (picked.some((p) => p.text === c.text)) continue; // same sentence in two chunks
    picked.push(c);
    chars += c.text.length;
  }
  picked.sort((a, b) => a.passageIdx - b.passageIdx || a.pos - b.pos);
  // Consecutive sentences from one passage share one marker at the end of the run. A line that
  // does not end like a sentence (a bullet, a table row) keeps its own marker, which separates it
  // from the next quote instead of running into it.
  const parts: string[] = [];
  picked.forEach((c, i) => {
    const next = picked[i + 1];
    parts.push(next && next.ref === c.ref && SENTENCE_END.test(c.text) ? c.text : `${c.text} [${c.ref}]`);
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
