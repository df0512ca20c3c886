// The table and code scan of the summary (summary-blocks.ts) reads every line of what it is given,
// so hostile tables and JSON must cost one pass: a regex anchored to line starts retried long runs
// once per character (1,000,000 "[" took about 50 s in stripMarkdown). Each input here is about
// 1,000,000 characters, five times the summary input, and is summarised in a few hundred ms at most.
import { describe, expect, test } from "bun:test";
import { BULLET_CHARS, SUMMARY_CHARS, extractiveSummary } from "../../src/models/builtin-summary.ts";
import { timed } from "../helpers/seeded.ts";

const SIZE = 1_000_000;
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length));

describe("summaries of hostile tables and code are linear in their input", () => {
  const hostile: [string, string][] = [
    ["1,000,000 '[' in an unclosed JSON block (a JSON document cut at the summary input)", "```json\n" + fill("[")],
    ["500,000 '[' then ']' in a closed JSON block", "```json\n" + "[".repeat(SIZE / 2) + "]".repeat(SIZE / 2) + "\n```\n"],
    ["500,000 lines of '[' in a JSON block", "```json\n" + fill("[\n")],
    ["unterminated strings with escapes", "```json\n" + fill('"\\"a\\')],
    ["a member chain on one line", "```json\n" + fill('"a":')],
    ["fence lines only", fill("```\n")],
    ["fences with backticks after them", fill("```a`\n")],
    ["a table header of 250,000 columns and one row", "| a ".repeat(SIZE / 8) + "|\n" + "|---".repeat(SIZE / 8) + "|\n" + "| x ".repeat(SIZE / 8) + "|\n"],
    ["a row of backslashes", "| a |\n| --- |\n| " + fill("\\") + " |\n"],
    ["500,000 bars on their own lines", fill("|\n")],
    ["rows without closing bars", "| a | b |\n| --- | --- |\n" + fill("| 7\n")],
    ["delimiter rows only", fill("| --- |\n")],
  ];
  for (const [name, md] of hostile) {
    test(`${name} in a few seconds at most`, () => {
      const [s, ms] = timed(() => extractiveSummary(md, "en").text);
      // A few hundred ms here; the quadratic scan took about 50 s. 5 s keeps that apart without
      // failing on a loaded CI machine (one run under the full suite took 1.35 s).
      expect(ms).toBeLessThan(5000);
      expect(s.startsWith("## Summary\n")).toBe(true);
      expect(s.length).toBeLessThanOrEqual(SUMMARY_CHARS);
      for (const line of s.split("\n").slice(1)) expect(line.length).toBeLessThanOrEqual(BULLET_CHARS + 2);
      // No run of brackets and no row syntax is left in a bullet.
      expect(s).not.toContain("[[");
      expect(s).not.toMatch(/^- \|/m);
    });
  }
});
