import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/ingest/convert/html-to-markdown.ts";
import { codeFence } from "../../src/ingest/convert/markdown-writer.ts";
import { jsonToMarkdown } from "../../src/ingest/convert/text.ts";

// The fence around code (HTML <pre>, JSON) used to grow one backtick at a time while the code still
// contained it: a rescan per backtick, so a megabyte of backticks burned the whole 120 s ingestion limit.

const enc = (s: string) => new TextEncoder().encode(s);

describe("code fences", () => {
  test("one backtick more than the longest run, at least three", () => {
    expect(codeFence("plain")).toBe("```");
    expect(codeFence("a `b` c ``d``")).toBe("```");
    expect(codeFence("```")).toBe("````");
    expect(codeFence("x ```` y ``````` z `")).toBe("````````");
  });

  test("HTML <pre> of a million backticks is fenced in one pass", () => {
    const run = "`".repeat(1_000_000);
    const t0 = performance.now();
    const md = htmlToMarkdown(`<pre>${run}</pre>`);
    // took over 120 s before
    expect(performance.now() - t0).toBeLessThan(5_000);
    const fence = "`".repeat(1_000_001);
    expect(md).toBe(`${fence}\n${run}\n${fence}\n`);
  });

  test("JSON string of a million backticks is fenced in one pass", () => {
    const run = "`".repeat(1_000_000);
    const t0 = performance.now();
    const md = jsonToMarkdown(enc(`["${run}"]`));
    expect(performance.now() - t0).toBeLessThan(5_000);
    const fence = "`".repeat(1_000_001);
    expect(md).toBe(`${fence}json\n[\n  "${run}"\n]\n${fence}\n`);
  });

  test("a fence inside ordinary code is outgrown as before", () => {
    expect(htmlToMarkdown("<pre>a ``` b</pre>")).toBe("````\na ``` b\n````\n");
  });
});
