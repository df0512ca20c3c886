// Pronouns and modal verbs of a question ("should", "my", "must") are no topic: a sentence that
// shares only them with the question does not answer it, and the sentence that holds the
// question's topic word is not outweighed by them.
import { describe, expect, test } from "bun:test";
import { extractiveAnswer } from "../../src/models/builtin-answer.ts";
import { contentTerms } from "../../src/models/lexical.ts";

const answer = (question: string, ...texts: string[]) =>
  extractiveAnswer({ question, lang: "en", system: "", history: [], passages: texts.map((text, i) => ({ ref: i + 1, text })) });

const MARATHON = "Taper by reducing mileage over the final three weeks. Practise race-day nutrition during training.";
const AQUARIUM = "Ammonia and nitrite should read zero before stocking. Change a quarter of the water every week.";

describe("function words of a question", () => {
  test("are not content terms", () => {
    for (const w of ["should", "could", "must", "may", "my", "our", "your", "we"]) expect(contentTerms(`${w} taper`)).toEqual(["taper"]);
  });

  test("a sentence sharing only them with the question is not quoted; the one with its topic is", () => {
    const r = answer("When should I taper?", AQUARIUM, MARATHON);
    expect(r.answered).toBe(true);
    expect(r.cited).toEqual([2]);
    expect(r.text).toContain("Taper by reducing mileage over the final three weeks.");
    expect(r.text).not.toContain("Ammonia");
  });

  test("a question made of them and one absent topic word is not answered", () => {
    const r = answer("Should we bring our skis?", "We should all read our emails before a meeting.", MARATHON);
    expect(r).toMatchObject({ answered: false, cited: [] });
  });
});

describe("asking what a text says", () => {
  test("'say' is how the question asks, not what it asks about", () => {
    expect(contentTerms("What does the policy say about taper weeks?")).toEqual(contentTerms("What does the policy about taper weeks?"));
  });

  test("a sentence sharing only 'says' with the question is not quoted", () => {
    const r = answer("What does it say about skis?", "The coach says hello to everyone.", MARATHON);
    expect(r).toMatchObject({ answered: false, cited: [] });
  });
});
