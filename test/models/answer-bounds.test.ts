import { describe, expect, test } from "bun:test";
import { extractiveAnswer } from "../../src/models/builtin-answer.ts";
import { PLATFORM_DEFAULT } from "../../src/ingest/chunker/index.ts";
import type { AnswerRequest, Passage } from "../../src/models/types.ts";
import { timed } from "../helpers/seeded.ts";

const req = (question: string, passages: Passage[]): AnswerRequest => ({ question, lang: "en", system: "", history: [], passages });

const FILLER = "The cafeteria serves lunch from noon on weekdays. Parking permits are renewed every spring. ";
const LEAVE = "Employees accrue 25 vacation days of paid leave per calendar year.";

describe("the built-in answerer's work is bounded per question", () => {
  test("the hostile chunk of the audit (50,000 full stops) is answered fast and quoted short", () => {
    const hostile = "vacation days policy " + ".".repeat(50_000) + " x";
    const [r, ms] = timed(() => extractiveAnswer(req("vacation days policy", [{ ref: 1, text: hostile }])));
    expect(ms).toBeLessThan(200);
    expect(r.answered).toBe(true);
    expect(r.cited).toEqual([1]);
    expect(r.text.startsWith("vacation days policy")).toBe(true);
    // The one 50,000-character "sentence" used to be quoted whole.
    expect(r.text.length).toBeLessThan(1_000);
    expect(r.text).toMatch(/… \[1\]$/);
  });

  test("100 passages of 30,000 characters are answered in well under a second (took 13 s)", () => {
    const big = FILLER.repeat(Math.ceil(30_000 / FILLER.length));
    const passages = [{ ref: 1, text: `${LEAVE} ${big}` }, ...Array.from({ length: 99 }, (_, i) => ({ ref: i + 2, text: big }))];
    extractiveAnswer(req("How many vacation days do employees get?", passages.slice(0, 2))); // warm the JIT
    const [r, ms] = timed(() => extractiveAnswer(req("How many vacation days do employees get?", passages)));
    expect(ms).toBeLessThan(800);
    expect(r).toMatchObject({ answered: true, cited: [1], text: `${LEAVE} [1]` });
  });

  test("a chunk of the default size is read whole: its last sentence can answer", () => {
    const max = PLATFORM_DEFAULT.max_characters;
    const text = `${FILLER.repeat(Math.floor((max - LEAVE.length - 1) / FILLER.length))}${LEAVE}`;
    expect(text.length).toBeLessThanOrEqual(max);
    expect(text.length).toBeGreaterThan(max - FILLER.length - 1);
    const r = extractiveAnswer(req("How many vacation days do employees get?", [{ ref: 1, text }]));
    expect(r).toMatchObject({ answered: true, cited: [1], text: `${LEAVE} [1]` });
  });

  test("a long sentence is cut at a word boundary, not inside a word", () => {
    const long = "Vacation days " + "are granted by the manager ".repeat(100) + "on request.";
    const r = extractiveAnswer(req("vacation days granted", [{ ref: 1, text: long }]));
    expect(r.answered).toBe(true);
    const quoted = r.text.replace(/ \[1\]$/, "");
    expect(quoted.endsWith("…")).toBe(true);
    expect(long.startsWith(quoted.slice(0, -1))).toBe(true);
    expect(long[quoted.length - 1]).toBe(" ");
    expect(quoted.length).toBeLessThanOrEqual(900);
  });
});
