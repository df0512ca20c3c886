import { describe, expect, test } from "bun:test";
import { stripMarkdown } from "../../src/models/builtin-summary.ts";
import { rng, timed } from "../helpers/seeded.ts";

/** stripMarkdown() as it was before it was made linear: the reference output on short texts. */
const regexStrip = (md: string) =>
  md
    .replace(/```[\s\S]*?```/g, "\n")
    .replace(/^\s*\|.*\|\s*$/gm, "")
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^#{1,6}\s+(.*)$/gm, "\n$1\n")
    .replace(/^[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+/gm, "\n")
    .replace(/(?<![\p{L}\p{N}])_{1,3}|_{1,3}(?![\p{L}\p{N}])|[*`]{1,3}/gu, "")
    .replace(/^\s*>\s?/gm, "");

describe("stripMarkdown() is linear in its input", () => {
  test("same text as the regex version on random markdown built from its special characters", () => {
    const rand = rng(3);
    const pieces = ["[", "]", "(", ")", "![", "](", "|", "| a |", ">", "> ", "#", "## ", "`", "```", "*", "_", "**", "- ", "* ", "1. ", "+ ",
      " ", "\t", "\n", "\r\n", "\n\n", "\u2028", "\u00a0", "a", "word", "Text.", "http://x.y/z"];
    for (let i = 0; i < 5000; i++) {
      const md = Array.from({ length: Math.floor(rand() * 30) }, () => pieces[Math.floor(rand() * pieces.length)]).join("");
      expect(stripMarkdown(md)).toBe(regexStrip(md));
    }
  });

  // A summary bullet read "- - item", and a "* item" ran into the item before it.
  test("list markers go, and each item is a block of its own", () => {
    expect(stripMarkdown("Fees:\n- Parking is 12 euros\n* Locker is 20 euros\n  + nested item\n1. first step\n2) second step\n")).toBe(
      "Fees:\n\nParking is 12 euros\n\nLocker is 20 euros\n\nnested item\n\nfirst step\n\nsecond step\n",
    );
  });

  test("links keep their text, images, tables, code and marks go", () => {
    const md = "# Title\n\nSee [the guide](http://x/guide) and ![logo](l.png) **now**.\n\n| a | b |\n|---|---|\n\n> Quoted `code`.\n\n```\nlet x;\n```\nEnd.";
    expect(stripMarkdown(md)).toBe(regexStrip(md));
    expect(stripMarkdown(md)).toContain("See the guide and  now.");
    expect(stripMarkdown(md)).not.toContain("let x");
  });

  // Each took seconds at 40,000 characters: "[" 4.3 s, "\n" 6.6 s, "\n\n" 5.5 s, "![" 2.6 s.
  const hostile: [string, string][] = [
    ["brackets never closed", "["],
    ["images never closed", "!["],
    ["link targets never closed", "[](" ],
    ["bracketed words", "[a"],
    ["blank lines", "\n"],
    ["blank lines with spaces", " \n"],
    ["backticks", "`"],
  ];
  for (const [name, unit] of hostile) {
    test(`${name} (40,000 characters) in well under 200 ms`, () => {
      // The run comes last: the old regexes slowed down when nothing after it closed it.
      const md = `Intro: see [the guide](http://x) now.\n\n${unit.repeat(Math.ceil(40_000 / unit.length))}\n\nEnd text.`;
      const [got, ms] = timed(() => stripMarkdown(md));
      expect(ms).toBeLessThan(200);
      expect(got.startsWith("Intro: see the guide now.")).toBe(true);
      expect(got.endsWith("End text.")).toBe(true);
    });
  }

  test("the audit's 2 MB of brackets, 1,000,000 open then 1,000,000 closed, in a few seconds at most (took ~50 s)", () => {
    const md = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    const [got, ms] = timed(() => stripMarkdown(md));
    // Well under a second when the machine is quiet; 5 s still tells a linear pass from ~50 s.
    expect(ms).toBeLessThan(5000);
    expect(got).toBe(md);
  });
});
