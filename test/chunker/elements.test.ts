import { describe, expect, test } from "bun:test";
import { markdownToElements, type Element } from "../../src/ingest/elements.ts";

describe("markdownToElements", () => {
  const cases: [string, string, Element[]][] = [
    ["atx headings with levels and closing hashes", "# One\n\n### Three ###\n###### Six\n#notaheading", [
      { type: "Title", text: "One", level: 1 },
      { type: "Title", text: "Three", level: 3 },
      { type: "Title", text: "Six", level: 6 },
      { type: "NarrativeText", text: "#notaheading" },
    ]],
    ["setext headings", "Big\n===\n\nSmall one\n---\ntext", [
      { type: "Title", text: "Big", level: 1 },
      { type: "Title", text: "Small one", level: 2 },
      { type: "NarrativeText", text: "text" },
    ]],
    ["paragraphs keep soft breaks, blank lines split", "a b\nc\n\nd", [
      { type: "NarrativeText", text: "a b\nc" },
      { type: "NarrativeText", text: "d" },
    ]],
    ["lists: one element per item, continuation joined, ordered number kept", "- first\n  more\n* second\n+ third\n\n1. one\n2) two\n   - nested", [
      { type: "ListItem", text: "first more" },
      { type: "ListItem", text: "second" },
      { type: "ListItem", text: "third" },
      { type: "ListItem", text: "1. one" },
      { type: "ListItem", text: "2) two" },
      { type: "ListItem", text: "nested" },
    ]],
    ["indented paragraph after blank continues the item", "- item\n\n  still item\n\nafter", [
      { type: "ListItem", text: "item still item" },
      { type: "NarrativeText", text: "after" },
    ]],
    ["pipe table is one element", "intro\n| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |\nnext", [
      { type: "NarrativeText", text: "intro" },
      { type: "Table", text: "| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |" },
      { type: "NarrativeText", text: "next" },
    ]],
    ["a pipe without delimiter row is text", "a | b\nc", [{ type: "NarrativeText", text: "a | b\nc" }]],
    ["fenced code keeps its lines, including blank ones and headings", "```ts\nconst a = 1;\n\n# not title\n```\n~~~~\nx\n~~~\ntail\n~~~~", [
      { type: "CodeSnippet", text: "const a = 1;\n\n# not title" },
      { type: "CodeSnippet", text: "x\n~~~\ntail" },
    ]],
    ["unclosed fence runs to the end", "```\ncode", [{ type: "CodeSnippet", text: "code" }]],
    ["thematic break produces nothing", "a\n\n---\n\n* * *\nb", [
      { type: "NarrativeText", text: "a" },
      { type: "NarrativeText", text: "b" },
    ]],
    ["blockquote marker stripped", "> quoted\n> text", [{ type: "NarrativeText", text: "quoted\ntext" }]],
    ["CRLF input", "# T\r\n\r\npara\r\n", [
      { type: "Title", text: "T", level: 1 },
      { type: "NarrativeText", text: "para" },
    ]],
    ["empty input", "", []],
  ];
  for (const [name, md, want] of cases) test(name, () => expect(markdownToElements(md)).toEqual(want));
});

describe("page markers", () => {
  test("set the page of following elements and produce no element", () => {
    const md = "<!-- page 1 -->\n# Title\nbody\n<!-- page 2 -->\n- item\n<!-- page 3 -->\n| a |\n|---|\n| 1 |\n";
    expect(markdownToElements(md)).toEqual([
      { type: "Title", text: "Title", level: 1, page: 1 },
      { type: "NarrativeText", text: "body", page: 1 },
      { type: "ListItem", text: "item", page: 2 },
      { type: "Table", text: "| a |\n|---|\n| 1 |", page: 3 },
    ]);
  });

  test("a marker inside a paragraph splits it across pages", () => {
    expect(markdownToElements("<!-- page 4 -->\nstart of a\n<!-- page 5 -->\nsentence")).toEqual([
      { type: "NarrativeText", text: "start of a", page: 4 },
      { type: "NarrativeText", text: "sentence", page: 5 },
    ]);
  });

  test("a code block spanning pages keeps its start page; later elements get the new page", () => {
    expect(markdownToElements("<!-- page 1 -->\n```\na\n<!-- page 2 -->\nb\n```\nafter")).toEqual([
      { type: "CodeSnippet", text: "a\nb", page: 1 },
      { type: "NarrativeText", text: "after", page: 2 },
    ]);
  });

  test("unpaged markdown leaves page undefined; near-miss markers are text", () => {
    const els = markdownToElements("text\n<!-- page x -->\n <!-- page 2 -->");
    expect(els).toEqual([{ type: "NarrativeText", text: "text\n<!-- page x -->\n <!-- page 2 -->" }]);
    expect(els.every((e) => e.page === undefined)).toBe(true);
  });

  test("empty pages produce no elements", () => {
    expect(markdownToElements("<!-- page 1 -->\n<!-- page 2 -->\n\n<!-- page 3 -->\nx")).toEqual([
      { type: "NarrativeText", text: "x", page: 3 },
    ]);
  });
});
