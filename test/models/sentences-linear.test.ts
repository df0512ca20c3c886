import { describe, expect, test } from "bun:test";
import { sentences } from "../../src/models/text.ts";
import { rng, timed } from "../helpers/seeded.ts";

/** sentences() as it was before it was made linear: the reference output on short texts. */
const ABBREV = new Set(["e.g", "i.e", "etc", "mr", "mrs", "ms", "dr", "prof", "vs", "no", "fig", "p", "pp", "cf", "st", "z.b", "bzw", "ca", "nr", "s"]);
function regexSentences(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)]|#+)\s)/)) {
    const flat = block.replace(/\s*\n\s*/g, " ").trim();
    if (!flat) continue;
    let start = 0;
    for (const m of flat.matchAll(/[.!?…]+["'»”)\]]*\s+(?=["'«“(\[]?[\p{Lu}\p{N}])/gu)) {
      const end = m.index! + m[0].trimEnd().length;
      const lastWord = (flat.slice(start, m.index!).match(/(\S+)$/)?.[1] ?? "").toLowerCase();
      if (ABBREV.has(lastWord.replace(/^[("'«]+/, "")) || /^\p{Lu}$/u.test(lastWord)) continue;
      const s = flat.slice(start, end).trim();
      if (s) out.push(s);
      start = m.index! + m[0].length;
    }
    const rest = flat.slice(start).trim();
    if (rest) out.push(rest);
  }
  return out;
}

describe("sentences() is linear in its input", () => {
  test("same sentences as the regex splitter on random text built from its special characters", () => {
    const rand = rng(11);
    const pieces = [".", "!", "?", "…", "...", '"', "'", "»", "”", ")", "]", "(", "[", "«", "“", " ", "  ", "\n", "\n\n", " \n ", "\t", "\u00a0",
      "A", "Z", "É", "7", "a", "word", "e.g", "Mr", "No", "(s", "'etc", "- ", "* ", "• ", "1. ", "2) ", "# ", "## ", "x.y"];
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: Math.floor(rand() * 40) }, () => pieces[Math.floor(rand() * pieces.length)]).join("");
      expect(sentences(text)).toEqual(regexSentences(text));
    }
  });

  test("keeps abbreviations, decimals and list items as before", () => {
    const text = "Dr. Smith paid 3.5 euros, e.g. For lunch. Then he left! \"Why?\" Nobody knew.\n- First item. Second\n1. Numbered";
    expect(sentences(text)).toEqual(["Dr. Smith paid 3.5 euros, e.g. For lunch.", "Then he left!", "\"Why?\"", "Nobody knew.", "- First item.", "Second", "1.", "Numbered"]);
  });

  // Each took seconds at 40,000 characters (a run of "." 4.2 s, of spaces 2.4 s, "Mr. B " 0.5 s).
  const hostile: [string, string][] = [
    ["a run of full stops", "."],
    ["a run of ellipses", "…"],
    ["a run of spaces", " "],
    ["a run of tabs", "\t"],
    ["abbreviations that never end a sentence", "Mr. B "],
    ["e.g. before capitals", "e.g. A "],
  ];
  for (const [name, unit] of hostile) {
    test(`${name} (40,000 characters) splits in well under 200 ms`, () => {
      const run = unit.repeat(Math.ceil(40_000 / unit.length));
      const text = `Vacation days policy${run}Next sentence here. Last one`;
      const [got, ms] = timed(() => sentences(text));
      expect(ms).toBeLessThan(200);
      expect(got.join(" ").replace(/\s+/g, " ")).toBe(text.replace(/\s+/g, " "));
      expect(got.at(-1)).toBe("Last one");
    });
  }

  test("time grows linearly: 160,000 full stops cost under 8× 20,000 of them", () => {
    // A lower-case letter after the run: no boundary, so the old regex retried at every full stop.
    const at = (n: number) => timed(() => sentences(`x${".".repeat(n)} y`))[1];
    at(20_000); // warm the JIT
    const small = Math.max(at(20_000), 1);
    expect(at(160_000)).toBeLessThan(small * 8 * 3);
  });
});
