import { describe, expect, test } from "bun:test";
import { markdownToElements } from "../../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig } from "../../src/ingest/chunker/index.ts";
import { plainToMarkdown } from "../../src/ingest/convert/text.ts";
import { markdownToElementsPrevious, plainToMarkdownPrevious } from "../../scripts/lib/elements-previous.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";

// Lines are now read in place instead of from an array of them all (elementsOf, plainToMarkdown):
// the elements (type, text, page, level), the chunks made of them and the converted plain text must
// be exactly what the previous implementation (scripts/lib/elements-previous.ts) gave.

const LINES = [
  "", " ", "\t", "word", "two words", "  indented text", "    four spaces", "# Title", "## Sub ##", "###### six", "####### seven",
  "#", "- item", "* star item", "+ plus", "-", "1. first", "2) second", "10. tenth", "  - nested", "    continued",
  "> quoted", "> - quoted item", ">", "> > deep", "```", "```js", "~~~", "````", "  ```", "---", "***", "___", "- - -",
  "===", "Heading", "| a | b |", "|---|---|", "| --- | :-: |", "a | b", "--- | ---", "|", "| x |", "|-|", "<!-- page 1 -->",
  "<!-- page 2 -->", "<!-- page 17 -->", "<!-- page 3 --> ", "\\# escaped", "text | with bar", "<div>", "1.", "a  b   c",
  "\f", "\u00a0", "a\u00a0", "text ", "x\t", "- x ", "  | bar", "|a|b| ", "``` ", " ~~~", "   ```", "é", "tail é ", "\v",
];
const ENDS = ["\n", "\n", "\n", "\r\n", "\r"];

function randomMarkdown(rand: () => number): string {
  const n = Math.floor(rand() * 60);
  let s = "";
  for (let i = 0; i < n; i++) {
    s += LINES[Math.floor(rand() * LINES.length)]!;
    if (rand() < 0.05) s += " trailing";
    s += ENDS[Math.floor(rand() * ENDS.length)]!;
  }
  if (rand() < 0.3 && s.length) s = s.slice(0, -1);
  return s;
}

const FIXTURES = [
  "",
  "\n",
  "\r\n\r\n",
  "\r",
  "one line",
  "para one\nstill one\n\npara two\n",
  "Setext\nheading\n===\n\nnext\n---\n",
  "<!-- page 1 -->\n\n# T\n\ntext\n<!-- page 2 -->\nmore\n",
  "```\ncode\n<!-- page 4 -->\nmore code\n```\nafter\n",
  "```\nunclosed\n\n",
  "~~~~\n<!-- page 2 -->\n<!-- page 3 -->\n~~~~\n",
  "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nafter\n",
  "| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n<!-- page 2 -->\r\n| 3 |\r\n",
  "- a\n- b\n\n  continued\nlazy\n\n1. one\n2. two\n",
  "> quoted\nplain\n> again\n\n",
  "a\rb\r\rc\r\n\r\nd",
  "| a |\n|---|",
  "x\n|a|b|\n|-|-|\n",
];

const show = (md: string) => JSON.stringify(md.slice(0, 2000));

describe("elements are those of the previous implementation", () => {
  test("on fixtures", () => {
    for (const md of FIXTURES) expect(markdownToElements(md), show(md)).toEqual(markdownToElementsPrevious(md));
  });

  test("on 3,000 seeded random documents, and their chunks", () => {
    const rand = rng(20261128);
    const cfgs = [
      parseChunkConfig(undefined),
      parseChunkConfig({ strategy: "basic", max_characters: 40, overlap: 7 }),
      parseChunkConfig({ strategy: "by_title", max_characters: 60, combine_text_under_n_chars: 30, multipage_sections: false }),
    ];
    let elements = 0;
    for (let i = 0; i < 3000; i++) {
      const md = randomMarkdown(rand);
      const now = markdownToElements(md);
      const before = markdownToElementsPrevious(md);
      expect(now, show(md)).toEqual(before);
      elements += before.length;
      const cfg = cfgs[i % cfgs.length]!;
      expect(chunkElements(now, cfg)).toEqual(chunkElements(before, cfg));
    }
    // The generator makes every kind of block, so the comparison covered real elements.
    expect(elements).toBeGreaterThan(15_000);
  });

  test("one long paragraph, a long table and a long code block", () => {
    const para = "word and more\n".repeat(20_000);
    const table = "| a | b |\n|---|---|\n" + "| 1 | 2 |\n".repeat(20_000);
    const code = "```\n" + "let x = 1;\n".repeat(20_000) + "```\n";
    for (const md of [para, table, code, para + "\n" + table + "\n" + code]) {
      expect(markdownToElements(md)).toEqual(markdownToElementsPrevious(md));
    }
  });
});

describe("plain text converts as before", () => {
  test("on fixtures and seeded random texts", () => {
    const rand = rng(7);
    const texts = [...FIXTURES, "  lead\n# not a title \t\n1. not a list\n\n\n|x|\n   ", "\r\n  \r\n"];
    for (let i = 0; i < 2000; i++) texts.push(randomMarkdown(rand));
    // More escaped lines than are held before being joined together.
    texts.push("- x\n# y\nplain\n".repeat(20_000), "1. a\r\n".repeat(30_000));
    for (const t of texts) {
      const bytes = new TextEncoder().encode(t);
      expect(plainToMarkdown(bytes), show(t)).toBe(plainToMarkdownPrevious(bytes));
    }
  });
});
