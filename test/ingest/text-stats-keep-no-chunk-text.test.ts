import { expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { TextStats } from "../../src/store/scoped-bm25.ts";

// The statistics keep every distinct term as a key for as long as the organization has it. A term
// that is the token cut out of the chunk's text (a substring in JavaScriptCore shares the text's
// buffer once longer than a few characters) kept the whole chunk alive: a chunk bringing one new
// word held its 9,500 characters for good. The splitter makes terms fresh strings instead.

test("counting chunks that each bring a new word keeps the words, not the chunks", () => {
  const stats = new TextStats();
  const heap = () => { Bun.gc(true); return heapStats().heapSize; };
  const before = heap();
  for (let i = 0; i < 200; i++) {
    // 256 KB of one-byte characters, flat, with a word of its own at the start.
    const text = `uniquely${i.toString(36)}named ${"filler words here ".repeat(256 * 1024 / 18)}`;
    text.charCodeAt(text.length - 1);
    stats.add("org", text);
  }
  const grown = heap() - before;
  expect(stats.of("org").rows).toBe(200);
  // The 200 chunks are 51 MB; their words and the counts a few KB.
  expect(grown).toBeLessThan(8 * 1024 * 1024);
});
