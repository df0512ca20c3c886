import { describe, expect, test } from "bun:test";
import { extractiveAnswer } from "../../src/models/builtin-answer.ts";
import { MAX_LOOKUPS, slips, spellTowards } from "../../src/models/typos.ts";
import type { AnswerRequest, Passage } from "../../src/models/types.ts";
import { timed } from "../helpers/seeded.ts";

const req = (question: string, passages: Passage[]): AnswerRequest => ({ question, lang: "en", system: "", history: [], passages });

const GUITAR = "Tune the guitar with a clip-on tuner before every practice session.";
const BIKE = "Lubricate the bike chain every 300 kilometres or after riding in rain.";
const OTHER = "The museum is open from ten to six, and 150 kilowatts or more charge the car fast.";

describe("slips between two words", () => {
  test("a changed, dropped, added or swapped letter is one slip", () => {
    expect([slips("guitr", "guitar", 2), slips("chian", "chain", 2), slips("expresso", "espresso", 2), slips("guitarr", "guitar", 2)]).toEqual([1, 1, 1, 1]);
  });
  test("past the bound the answer is bound + 1, whatever the true distance", () => {
    expect([slips("treatmnt", "treatment", 1), slips("abcdef", "uvwxyz", 1), slips("ab", "abcdef", 2)]).toEqual([1, 2, 3]);
  });
});

describe("a question's typos are read as the passages spell them", () => {
  test("a word no passage holds becomes the passage word one slip away; known words and short ones stay", () => {
    expect(spellTowards("How do I tune a guitr?", [GUITAR])).toBe("how do i tune a guitar");
    // "tune" is in the passage, "do" is short: untouched even though other words are near them
    expect(spellTowards("how to lubricate a bike chian", [BIKE])).toBe("how to lubricate a bike chain");
  });

  test("a four-letter word is only read as a longer word it lacks a letter of (move stays move, not more)", () => {
    expect(spellTowards("how fast do flows move", [OTHER])).toBe("how fast do flows move");
    expect(spellTowards("marathon tapr", ["Taper over the final three weeks."])).toBe("marathon taper");
  });

  test("words with digits are never changed (an error code E21 is not E12)", () => {
    expect(spellTowards("what does e12 mean", ["Error E21 means the grid voltage is too high."])).toBe("what does e12 mean");
  });

  test("the extractive answer quotes the sentence a typo hid, cited, and the quote is the passage's own text", () => {
    const r = extractiveAnswer(req("how do i tune a guitr", [{ ref: 1, text: `${OTHER} ${GUITAR}` }]));
    expect(r).toMatchObject({ answered: true, cited: [1], text: `${GUITAR} [1]` });
  });

  test("a question of unknown words looks up at most MAX_LOOKUPS of them and stays fast", () => {
    // letters only: words with digits are never looked up, and would not load the comparison
    const name = (i: number, n: number) => Array.from({ length: n }, (_, k) => String.fromCharCode(97 + (Math.floor(i / 26 ** k) % 26))).join("");
    const passage = Array.from({ length: 6000 }, (_, i) => `word${name(i, 3)}`).join(" ");
    const question = Array.from({ length: 1500 }, (_, i) => `qzv${name(i, 3)}kq`).join(" ");
    const [out, ms] = timed(() => spellTowards(question, [passage.slice(0, 50_000)]));
    expect(out).toBe(question);
    expect(ms).toBeLessThan(300);
  });

  test("past MAX_LOOKUPS distinct unknown words the rest stay as typed", () => {
    const letters = (i: number) => String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26));
    const unknown = Array.from({ length: MAX_LOOKUPS }, (_, i) => `zzqx${letters(i)}`);
    expect(spellTowards(["guitr", ...unknown].join(" "), [GUITAR]).split(" ")[0]).toBe("guitar");
    expect(spellTowards([...unknown, "guitr"].join(" "), [GUITAR]).split(" ").at(-1)).toBe("guitr");
    // a word repeated after the bound keeps the reading it was given before
    expect(spellTowards(["guitr", ...unknown, "guitr"].join(" "), [GUITAR]).split(" ").at(-1)).toBe("guitar");
  });
});
