// BM25 scoring over a small in-memory collection (sentences of the retrieved passages, or the
// passages themselves). A light stemmer lets "documents"/"document" and "payments"/"payment" meet.
import { words } from "./text.ts";
import { isStopword } from "./lang.ts";

// Words that carry no topic in a question ("please explain what ... means").
const QUESTION_FILLER = new Set(
  "please explain tell say says describe give list show mean means meaning define definition know want need about "
    .concat("svp expliquer explique dire decrire donner quoi erklare erklaren bitte sagen explicar dime decir ")
    .split(" ").filter(Boolean),
);

// English function words that are not in lang.ts STOPWORDS, which also decide what the hash
// embedder skips (adding to them would change every stored vector): pronouns and modal verbs.
// They carry no topic, yet counted as half of a short question's terms ("When should I taper
// before the race?" was "answered" by "Ammonia and nitrite should read zero before stocking").
const FUNCTION_WORDS = new Set("me my we us our your if so am been should could must may might shall any all".split(" "));

export function stem(w: string): string {
  if (w.length > 6) return w.slice(0, 6);
  if (w.length > 3 && w.endsWith("s")) return w.slice(0, -1);
  return w;
}

/** Content terms (stemmed) of a text: no stop words, no question filler, no 1-char tokens. */
export function contentTerms(text: string): string[] {
  return words(text)
    .filter((w) => w.length > 1 && !isStopword(w) && !QUESTION_FILLER.has(w) && !FUNCTION_WORDS.has(w))
    .map(stem);
}

export interface Bm25Result {
  scores: number[];
  /** share of the query's distinct content terms present in each document, 0..1. Unweighted on
   *  purpose: with few sentences idf overweights words absent from all of them. */
  coverage: number[];
}

/**
 * `context[i]`, when given, is text that scores for docs[i] as if it were part of it but never
 * counts towards its coverage (a passage's document name for its sentences).
 */
export function bm25(query: string, docs: string[], context?: string[], k1 = 1.2, b = 0.75): Bm25Result {
  const qTerms = [...new Set(contentTerms(query))];
  const ownTerms = docs.map(contentTerms);
  const docTerms = context ? ownTerms.map((own, i) => (context[i] ? own.concat(contentTerms(context[i]!)) : own)) : ownTerms;
  const n = docs.length;
  const avgLen = docTerms.reduce((s, d) => s + d.length, 0) / Math.max(1, n) || 1;
  const df = new Map<string, number>();
  for (const terms of docTerms) for (const t of new Set(terms)) df.set(t, (df.get(t) ?? 0) + 1);
  // +1 inside the log keeps idf positive even for terms in every document.
  const idf = new Map(qTerms.map((t) => {
    const d = df.get(t) ?? 0;
    return [t, Math.log(1 + (n - d + 0.5) / (d + 0.5))] as const;
  }));
  const scores: number[] = [];
  const coverage: number[] = [];
  docTerms.forEach((terms, i) => {
    const own = terms === ownTerms[i] ? undefined : new Set(ownTerms[i]);
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    let score = 0;
    let covered = 0;
    for (const t of qTerms) {
      const f = tf.get(t);
      if (!f) continue;
      const w = idf.get(t)!;
      if (!own || own.has(t)) covered++;
      score += (w * f * (k1 + 1)) / (f + k1 * (1 - b + (b * terms.length) / avgLen));
    }
    scores.push(score);
    coverage.push(qTerms.length ? covered / qTerms.length : 0);
  });
  return { scores, coverage };
}
