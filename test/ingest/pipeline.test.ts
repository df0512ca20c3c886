import { describe, expect, test } from "bun:test";
import { countWords, IngestFailure, parseDocument, withoutPageMarkers } from "../../src/ingest/pipeline.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import { docx, imageOnlyPdf, patchDeclaredSizes, textPdf, utf8 } from "../convert/fixtures.ts";

const body = (p: number, l: number) => `Body line ${l} of page ${p} with some ordinary words.`;
const chapter = (p: number) => `Chapter ${p}\n\n${body(p, 1)} ${body(p, 2)}`;

describe("parseDocument, one per accepted format", () => {
  test("PDF: pages, headings, page markers, page spans", async () => {
    const r = await parseDocument(await textPdf(3, 2), "application/pdf", null);
    expect(r.nbPages).toBe(3);
    expect(r.markdown.startsWith("<!-- page 1 -->\n\n# Chapter 1\n")).toBe(true);
    // Platform default by_title combines the three small sections (under 1000 characters).
    expect(r.chunks).toEqual([{ text: [1, 2, 3].map(chapter).join("\n\n"), pages: [1, 2, 3] }]);
    expect(r.nbWords).toBe(66);
    const split = await parseDocument(await textPdf(3, 2), "application/pdf", { combine_text_under_n_chars: 0 });
    expect(split.chunks).toEqual([1, 2, 3].map((p) => ({ text: chapter(p), pages: [p] })));
  });

  test("DOCX: headings, lists and table kept", async () => {
    const r = await parseDocument(await docx(), DOCX, null);
    expect(r).toEqual({
      markdown: "# Annual Report\n\nIntro paragraph with text.\n\n## Goals\n\n- First goal\n- Second goal\n\n1. Step one\n2. Step two\n\n| Name | Value |\n| --- | --- |\n| a\\|b | 2 |\n",
      nbPages: 0,
      chunks: [
        { text: "Annual Report\n\nIntro paragraph with text.\n\nGoals\n\nFirst goal\n\nSecond goal\n\n1. Step one\n\n2. Step two", pages: [] },
        { text: "| Name | Value |\n| --- | --- |\n| a\\|b | 2 |", pages: [] },
      ],
      nbWords: 22,
    });
  });

  test("HTML: scripts and styles dropped", async () => {
    const html = "<html><head><script>steal()</script><style>p{}</style></head><body><h1>Hi</h1><p>Para one.</p><ul><li>a</li><li>b</li></ul></body></html>";
    expect(await parseDocument(utf8(html), "text/html; charset=utf-8", null)).toEqual({
      markdown: "# Hi\n\nPara one.\n\n- a\n- b\n", nbPages: 0, chunks: [{ text: "Hi\n\nPara one.\n\na\n\nb", pages: [] }], nbWords: 5,
    });
  });

  test("Markdown, plain text and CSV", async () => {
    const md = await parseDocument(utf8("# A\n\ntext a\n\n# B\n\ntext b"), "text/markdown", { strategy: "basic", max_characters: 10 });
    expect(md.chunks).toEqual([{ text: "A\n\ntext a", pages: [] }, { text: "B\n\ntext b", pages: [] }]);
    const txt = await parseDocument(utf8("Plain line one.\n\nSecond para."), "text/plain", null);
    expect(txt.chunks).toEqual([{ text: "Plain line one.\n\nSecond para.", pages: [] }]);
    const csv = await parseDocument(utf8("name,qty\nbolt,3\nnut,5\n"), "text/csv", null);
    expect(csv.chunks).toEqual([{ text: "| name | qty |\n| --- | --- |\n| bolt | 3 |\n| nut | 5 |", pages: [] }]);
    expect(csv.nbWords).toBe(6);
  });
});

describe("chunking options through the pipeline", () => {
  const doc = utf8("# One\n\n" + "alpha ".repeat(20).trim() + "\n\n# Two\n\nshort two\n\n# Three\n\nshort three");
  const cases: [string, unknown, string[]][] = [
    ["default combines small sections", null, ["One\n\n" + "alpha ".repeat(20).trim() + "\n\nTwo\n\nshort two\n\nThree\n\nshort three"]],
    ["combine 0 keeps sections apart", { combine_text_under_n_chars: 0 }, ["One\n\n" + "alpha ".repeat(20).trim(), "Two\n\nshort two", "Three\n\nshort three"]],
  ].map((c) => c as [string, unknown, string[]]);
  for (const [name, chunk, want] of cases.slice(0, 2)) {
    test(name, async () => expect((await parseDocument(doc, "text/markdown", chunk)).chunks.map((c) => c.text)).toEqual(want));
  }
  test("max_characters splits an oversized element, overlap prefixes the split pieces", async () => {
    const r = await parseDocument(utf8("x".repeat(25)), "text/plain", { max_characters: 10, overlap: 2 });
    expect(r.chunks.map((c) => c.text)).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(9)]); // windows 0-10, 8-18, 16-25
    expect(r.chunks.length).toBe(3);
  });
  for (const [chunk, key] of [
    [{ bogus: 1 }, "bogus"], [{ max_characters: -1 }, "max_characters"], [{ strategy: "by_page" }, "strategy"],
    [{ max_characters: 100, new_after_n_chars: 200 }, "new_after_n_chars"], [{ max_characters: 100, overlap: 100 }, "overlap"],
  ] as [unknown, string][]) {
    test(`invalid chunk config names ${key}`, async () => {
      const err = await parseDocument(utf8("text"), "text/plain", chunk).catch((e) => e);
      expect(err).toBeInstanceOf(IngestFailure);
      expect(err.message).toStartWith("invalid chunking configuration: ");
      expect(err.message).toContain(`chunk.${key}`);
    });
  }
});

describe("failures are IngestFailure with a reason", () => {
  test("PDF without a text layer", async () => {
    const err = await parseDocument(await imageOnlyPdf(), "application/pdf", null).catch((e) => e);
    expect(err).toBeInstanceOf(IngestFailure);
    expect(err.message).toMatch(/text/i);
  });
  test("DOCX declaring a huge uncompressed size is refused", async () => {
    const err = await parseDocument(patchDeclaredSizes(await docx(), 0x7fffffff), DOCX, null).catch((e) => e);
    expect(err).toBeInstanceOf(IngestFailure);
    expect(err.message).toMatch(/uncompressed|size|limit/i);
  });
  test("empty text", async () => {
    const err = await parseDocument(utf8("  \n\n "), "text/plain", null).catch((e) => e);
    expect(err).toEqual(new IngestFailure("the document contains no text to index"));
  });
});

test("word count and marker stripping", () => {
  expect(countWords("It's a well-known fact: 3.14 is π. ## héllo")).toBe(8);
  expect(withoutPageMarkers("<!-- page 1 -->\n\nA\n\n<!-- page 2 -->\n\nB\n")).toBe("\n\nA\n\n\n\nB\n");
});
