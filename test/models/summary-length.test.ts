import { describe, expect, test } from "bun:test";
import { BULLET_CHARS, SUMMARY_CHARS, extractiveSummary } from "../../src/models/builtin-summary.ts";
import { PLATFORM_DEFAULT } from "../../src/ingest/chunker/index.ts";
import { SUMMARY_INPUT_CHARS } from "../../src/ingest/enrich.ts";
import { timed } from "../helpers/seeded.ts";

const bullets = (summary: string) => summary.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2));

describe("the extractive summary is bounded in length", () => {
  test("the caps leave the summary chunk well within the default chunk size", () => {
    expect(BULLET_CHARS).toBeLessThan(SUMMARY_CHARS);
    expect(SUMMARY_CHARS * 2).toBeLessThanOrEqual(PLATFORM_DEFAULT.max_characters);
  });

  // Each made a summary of 200,015 characters: the whole summary input as one bullet.
  const oneSentence: [string, string][] = [
    ["one word of 'z'", "z".repeat(SUMMARY_INPUT_CHARS)],
    ["a CSV row of many columns", "col,".repeat(SUMMARY_INPUT_CHARS / 4)],
    ["escaped ampersands", "&amp;".repeat(SUMMARY_INPUT_CHARS / 5)],
  ];
  for (const [name, text] of oneSentence) {
    test(`${name}: one short bullet cut with an ellipsis`, () => {
      const s = extractiveSummary(text, "en").text;
      expect(s.length).toBeLessThanOrEqual(SUMMARY_CHARS);
      const [b, ...rest] = bullets(s);
      expect(rest).toEqual([]);
      expect(b!.length).toBeLessThanOrEqual(BULLET_CHARS);
      expect(b!.endsWith("…")).toBe(true);
      expect(text.startsWith(b!.slice(0, -1))).toBe(true);
    });
  }

  test("long sentences are cut at a word, and the bullets together stay under the cap", () => {
    const sentence = (i: number) => `Clause ${i} of the agreement ${"binds the parties to the terms set out below ".repeat(12)}in full.`;
    const md = Array.from({ length: 40 }, (_, i) => sentence(i)).join(" ");
    const s = extractiveSummary(md, "en").text;
    const bs = bullets(s);
    expect(bs.length).toBeGreaterThanOrEqual(3);
    expect(s.length).toBeLessThanOrEqual(SUMMARY_CHARS);
    for (const b of bs) {
      expect(b.length).toBeLessThanOrEqual(BULLET_CHARS);
      expect(b.endsWith("…")).toBe(true);
      const cut = b.slice(0, -1);
      expect(md).toContain(cut + " ");
    }
  });

  test("ordinary sentences are kept whole", () => {
    const md = "Employees accrue 25 days of paid leave per year. Unused leave may be carried over until March. Requests must be approved by the line manager.";
    expect(bullets(extractiveSummary(md, "en").text)).toEqual([
      "Employees accrue 25 days of paid leave per year.",
      "Unused leave may be carried over until March.",
      "Requests must be approved by the line manager.",
    ]);
  });

  test("70,000 tiny sentences (the whole summary input) summarised in well under a second", () => {
    const md = "A. ".repeat(SUMMARY_INPUT_CHARS / 3);
    const [s, ms] = timed(() => extractiveSummary(md, "en").text);
    expect(ms).toBeLessThan(1000);
    expect(bullets(s).length).toBe(7);
  });
});
