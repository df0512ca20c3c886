// Answer quality of the built-in extractive answerer on the retrieval evaluation's corpus
// (scripts/eval/corpus.ts), through the real retrieval step (hybrid, the platform's topK 8).
//
//   bun scripts/eval-answers.ts [--topk 8] [--verbose]
//
// For each of the 130 questions whose answer sits on a known page:
// - answered: the answerer did not say the documents do not answer;
// - correct: the answer quotes a sentence of the expected page and cites a chunk of that page;
// - clean: nothing else is quoted (every quoted sentence is one of the expected page's).
// For UNANSWERABLE (questions the corpus does not answer, written before any run), the share
// the answerer wrongly answered. The answerer is never shown which page is expected.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createBuiltinEmbedder } from "../src/models/builtin-embed.ts";
import { extractiveAnswer } from "../src/models/builtin-answer.ts";
import type { ModelRegistry } from "../src/models/registry.ts";
import { retrieve } from "../src/retrieval/retrieve.ts";
import { toPassages } from "../src/retrieval/prompt.ts";
import { DOCS, QUESTIONS } from "./eval/corpus.ts";
import { loadCorpus } from "./eval/load.ts";

/** Questions none of the 22 documents answers, some in their vocabulary. */
export const UNANSWERABLE = [
  "What is the CEO's salary?",
  "Is there a company gym?",
  "What is the dress code for the office?",
  "Who won the football world cup in 2018?",
  "What is the wifi password?",
  "What is the capital of Australia?",
  "Which airline do we use for business trips?",
  "How much does a parking permit cost?",
  "When was the company founded?",
  "What is the phone number of customer support?",
  "How do I change the oil in my car?",
  "What is the boiling point of mercury?",
  "How many calories are in a croissant?",
  "Can I bring my dog to work?",
  "What is the warranty period of the laptop?",
];

/**
 * Unanswerable questions that name one of the documents or its topic, so every sentence of that
 * document shares words with them. Written after the first results of letting a document's name
 * count as words of its sentences (which answered 14 of these 20 with any sentence of the named
 * document), to keep that from coming back.
 */
export const UNANSWERABLE_NAMING = [
  "What does the employee handbook say about the company gym?",
  "Does the home insurance cover car theft abroad?",
  "What does the guitar guide say about drums?",
  "Is there a fee for wine tasting?",
  "What is the price of the espresso machine?",
  "Who wrote the python style guide?",
  "How much does the solar inverter weigh?",
  "What colour is the network router?",
  "Where is the museum cafe?",
  "Did the lighthouse keeper have a cat?",
  "What does the beekeeping guide say about honey prices?",
  "Which volcano erupted most recently?",
  "What is the best chess opening for beginners?",
  "How do I clean the aquarium glass?",
  "What does the data retention policy say about paper archives?",
  "Can I charge the electric car at work?",
  "What does the first aid guide say about snake bites?",
  "What is the marathon world record?",
  "How do I store sourdough starter in the freezer?",
  "When does the tomato harvest start?",
];

const { values } = parseArgs({ options: { topk: { type: "string", default: "8" }, verbose: { type: "boolean", default: false } } });
const topK = Number(values.topk);
const dir = mkdtempSync(join(tmpdir(), "kbqa-eval-answers-"));
const ORG = crypto.randomUUID();
const CORPUS = crypto.randomUUID();
const flat = (s: string) => s.replace(/\s+/g, " ").trim();
try {
  const embedder = createBuiltinEmbedder();
  const models = { embedder: () => embedder } as unknown as ModelRegistry;
  const { db, vectors, docIds } = await loadCorpus(dir, ORG, CORPUS, DOCS, embedder);
  const ctx = { db, models, vectors };
  const ask = async (q: string) => {
    const chunks = await retrieve(ctx, ORG, [CORPUS], q, { topK, mode: "hybrid" });
    return { chunks, r: extractiveAnswer({ question: q, lang: "en", system: "", history: [], passages: toPassages(chunks) }) };
  };
  const tally: Record<string, { n: number; answered: number; correct: number; clean: number }> = {};
  const add = (k: string, a: boolean, c: boolean, cl: boolean) => {
    const t = (tally[k] ??= { n: 0, answered: 0, correct: 0, clean: 0 });
    t.n++; t.answered += +a; t.correct += +c; t.clean += +cl;
  };
  for (const q of QUESTIONS) {
    const { chunks, r } = await ask(q.q);
    const page = DOCS.find((d) => d.name === q.doc)!.pages[q.page - 1]!.map(flat);
    const text = flat(r.text);
    const citesPage = r.cited.some((ref) => chunks[ref - 1]?.documentId === docIds.get(q.doc) && chunks[ref - 1]!.pages.includes(q.page));
    const correct = r.answered && citesPage && page.some((s) => text.includes(s));
    let rest = text;
    for (const s of page) rest = rest.split(s).join("");
    const clean = correct && rest.replace(/\[\d+\]/g, "").trim() === "";
    for (const k of ["all", q.kind ?? "original"]) add(k, r.answered, correct, clean);
    if (values.verbose && !clean) console.log(`${correct ? "NOISY" : "WRONG"} ${q.q}\n   ${r.text}`);
  }
  const answeredAnyway = async (questions: string[]) => {
    let wrong = 0;
    for (const q of questions) {
      const { r } = await ask(q);
      if (r.answered) {
        wrong++;
        if (values.verbose) console.log(`ANSWERED ${q}\n   ${r.text}`);
      }
    }
    return wrong;
  };
  const wrong = await answeredAnyway(UNANSWERABLE);
  const wrongNaming = await answeredAnyway(UNANSWERABLE_NAMING);
  console.log(`built-in extractive answerer, hybrid retrieval topK ${topK}\n`);
  console.log("| questions | n | answered | correct | correct and clean |\n|---|---|---|---|---|");
  const pct = (x: number, n: number) => (x / n).toFixed(3);
  for (const [k, t] of Object.entries(tally)) console.log(`| ${k} | ${t.n} | ${pct(t.answered, t.n)} | ${pct(t.correct, t.n)} | ${pct(t.clean, t.n)} |`);
  console.log(`\nunanswerable: ${wrong} of ${UNANSWERABLE.length} answered anyway (${pct(wrong, UNANSWERABLE.length)})`);
  console.log(`unanswerable, naming a document: ${wrongNaming} of ${UNANSWERABLE_NAMING.length} answered anyway (${pct(wrongNaming, UNANSWERABLE_NAMING.length)})`);
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
