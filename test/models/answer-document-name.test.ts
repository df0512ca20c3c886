import { describe, expect, test } from "bun:test";
import { extractiveAnswer } from "../../src/models/builtin-answer.ts";
import type { AnswerRequest, Passage } from "../../src/models/types.ts";

const req = (question: string, passages: Passage[]): AnswerRequest => ({ question, lang: "en", system: "", history: [], passages });

const CLAIM = "Claims must be reported within 14 days of the incident.";

// What hybrid retrieval hands the answerer for the claim question in scripts/eval-answers.ts.
const RETRIEVED: Passage[] = [
  { ref: 1, title: "home-insurance.pdf", pages: [2], text: "Claims must be reported within 14 days of the incident. Photographs of the damage speed up the assessment." },
  { ref: 2, title: "employee-handbook.pdf", pages: [3], text: "Expense claims must be filed within 30 days with original receipts. Travel in business class requires director sign-off." },
  { ref: 3, title: "data-retention-policy.pdf", pages: [3], text: "Personal data must be erased within thirty days of a valid deletion request. Backups are overwritten on a rolling 35 day cycle." },
  { ref: 4, title: "home-insurance.pdf", pages: [3], text: "The excess for water leak claims is 500 euros. Jewellery over 2000 euros must be listed individually." },
  { ref: 5, title: "employee-handbook.pdf", pages: [1], text: "Full-time employees receive 25 days of paid annual leave. Leave requests must be submitted two weeks in advance." },
  { ref: 6, title: "sourdough-bread.pdf", pages: [1], text: "Feed the sourdough starter with equal weights of flour and water. A healthy starter doubles in volume within six hours." },
  { ref: 7, title: "museum-visitor-guide.pdf", pages: [2], text: "Photography without flash is allowed in the permanent collection. Large bags must be left in the cloakroom." },
  { ref: 8, title: "espresso-machine.pdf", pages: [3], text: "The steam wand must be purged for two seconds after frothing milk. Milk should be frothed to about 65 degrees for a latte." },
];

describe("a passage's document name ranks its sentences but never answers for them", () => {
  test("the sentence of the document the question names is quoted alone", () => {
    const r = extractiveAnswer(req("Within how many days must an insurance claim be reported?", RETRIEVED));
    // Without the names the handbook's expense rule was quoted too: it matched "claims", "days", "within".
    expect(r).toMatchObject({ answered: true, cited: [1] });
    expect(r.text).toBe(`${CLAIM} [1]`);
  });

  test("a question made of the document's name and one absent topic is not answered", () => {
    const passages = [{ ref: 1, text: "Indent Python code with four spaces, never tabs.", title: "python-style-guide.pdf" }];
    const r = extractiveAnswer(req("Who wrote the python style guide?", passages));
    expect(r).toMatchObject({ answered: false, cited: [] });
  });

  test("without names the answer is what it was", () => {
    const passages = RETRIEVED.map(({ title: _, ...p }) => p);
    const named = RETRIEVED.map((p, i) => ({ ...p, title: `file-${i}.pdf` }));
    const q = "Within how many days must an insurance claim be reported?";
    expect(extractiveAnswer(req(q, named))).toEqual(extractiveAnswer(req(q, passages)));
  });
});
