import { expect, test } from "bun:test";
import { markdownToElements } from "../../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig } from "../../src/ingest/chunker/index.ts";
import { FoldedText, FoldSegment, isWs } from "../../src/ingest/chunker/folded.ts";
import { FOLD_LAZILY_OVER } from "../../src/ingest/chunker/prechunk.ts";
import { splitPieces, splitText } from "../../src/ingest/chunker/split.ts";
import { chunkElements as chunkElementsPrevious } from "../../scripts/lib/chunker-previous/index.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";

// An element over FOLD_LAZILY_OVER characters has its whitespace folded a block at a time as its
// chunks are cut (FoldedText), instead of into a new string of its whole text first. The chunks
// must be exactly those of the previous chunker (scripts/lib/chunker-previous/).

const SPACES = [" ", " ", " ", "  ", "\n", "\t", "\r\n", " \n ", "\u00a0", "\u2028", "\ufeff", "\u3000", "\v", "\f"];
const WORDS = ["a", "word", "two", "é", "\u{1d11e}", "x".repeat(30), "|", "#", "-", "1."];
const pick = <T>(rand: () => number, a: readonly T[]) => a[Math.floor(rand() * a.length)]!;

function text(rand: () => number, n: number): string {
  let s = rand() < 0.3 ? pick(rand, SPACES) : "";
  while (s.length < n) s += pick(rand, WORDS) + (rand() < 0.9 ? " " : pick(rand, SPACES));
  return s;
}

test("whitespace is what /\\s/ and trim() read as such, for every code unit", () => {
  const wrong: number[] = [];
  for (let c = 0; c < 65536; c++) {
    const ch = String.fromCharCode(c);
    if (isWs(c) !== /\s/.test(ch) || isWs(c) !== (ch.trim() === "")) wrong.push(c);
  }
  expect(wrong).toEqual([]);
});

test("split as it folds, in blocks of 1 to 40 characters, gives the pieces of the folded string", () => {
  const rand = rng(4040);
  let folded = 0;
  for (let i = 0; i < 3000; i++) {
    const raw = text(rand, Math.floor(rand() * 600));
    const seg = FoldSegment.of(raw);
    const whole = raw.trim().replace(/\s+/g, " ");
    if (typeof seg === "string") {
      expect(seg).toBe(whole);
      continue;
    }
    folded++;
    expect(seg.length).toBe(whole.length);
    expect(String(seg)).toBe(whole);
    const head = rand() < 0.5 ? "" : text(rand, Math.floor(rand() * 30)).trim() + "\n\n";
    const max = 5 + Math.floor(rand() * 120);
    const overlap = rand() < 0.3 ? 0 : Math.floor(rand() * max);
    const block = 1 + Math.floor(rand() * 40);
    expect([...splitPieces(new FoldedText(head, seg, block), max, overlap)], JSON.stringify([raw, head, max, overlap, block]))
      .toEqual(splitText(head + whole, max, overlap));
  }
  expect(folded).toBeGreaterThan(2000);
});

test("read forward with releases anywhere ahead (the overlap's tail first), a FoldedText is the folded string", () => {
  const rand = rng(77);
  for (let i = 0; i < 3000; i++) {
    const seg = FoldSegment.of(text(rand, 1 + Math.floor(rand() * 400)));
    if (typeof seg === "string") continue;
    const head = rand() < 0.5 ? "" : "head\n\n";
    const whole = head + String(seg);
    const t = new FoldedText(head, seg, 1 + Math.floor(rand() * 30));
    let at = 0;
    for (let k = 0; k < 6 && at < whole.length; k++) {
      at += Math.floor(rand() * (whole.length - at) * (k === 0 ? 1 : 0.5));
      t.release(at);
      const end = at + Math.floor(rand() * 60);
      expect(t.slice(at, end), JSON.stringify([whole, at, end])).toBe(whole.slice(at, end));
      expect(t.charCodeAt(at)).toEqual(whole.charCodeAt(at));
    }
  }
});

const outcome = (f: () => unknown) => {
  try {
    return f();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
};

test("documents with elements over the limit, in 12 configurations (48 documents): the previous chunker's chunks", () => {
  const rand = rng(65536);
  const cfgs = [
    parseChunkConfig(undefined),
    parseChunkConfig({ strategy: "basic", max_characters: 40, overlap: 7 }),
    parseChunkConfig({ strategy: "basic", max_characters: 600, overlap: 300, overlap_all: true }),
    parseChunkConfig({ strategy: "basic", max_characters: 5, overlap: 4, overlap_all: true }),
    parseChunkConfig({ strategy: "by_title", max_characters: 60, combine_text_under_n_chars: 30, multipage_sections: false }),
    parseChunkConfig({ strategy: "by_title", max_characters: 2000, new_after_n_chars: 100, overlap: 50, overlap_all: true }),
    parseChunkConfig({ strategy: "by_title", max_characters: 70_000, overlap: 10 }),
    parseChunkConfig({ strategy: "basic", max_characters: 300_000 }),
    parseChunkConfig({ strategy: "basic", max_characters: 1000, overlap: 256 }),
    parseChunkConfig({ strategy: "by_title", max_characters: 9, overlap: 1, overlap_all: true }),
    parseChunkConfig({ strategy: "basic", max_characters: 65_537, overlap: 256, overlap_all: true }),
    parseChunkConfig({ strategy: "by_title", max_characters: 3000, combine_text_under_n_chars: 3000 }),
  ];
  const BLOCKS = [
    () => "# Title " + text(rand, 20),
    () => text(rand, 30),
    () => "- item " + text(rand, 20),
    () => "<!-- page " + (1 + Math.floor(rand() * 3)) + " -->",
    () => "| a | b |\n|---|---|\n| 1 | 2 |",
    () => "```\ncode  with   spaces\n```",
    () => text(rand, FOLD_LAZILY_OVER + Math.floor(rand() * 150_000)), // a large paragraph
    () => "- " + text(rand, FOLD_LAZILY_OVER + 5000).replace(/\n/g, " "), // a large list item
    () => "## " + text(rand, FOLD_LAZILY_OVER + 10).replace(/[\n\r\u2028]/g, " "), // a large title
  ];
  let large = 0;
  for (let i = 0; i < 48; i++) {
    const parts: string[] = [];
    for (let k = 1 + Math.floor(rand() * 6); k > 0; k--) parts.push(pick(rand, BLOCKS)());
    const md = parts.join("\n\n");
    const els = [...markdownToElements(md)];
    large += els.filter((e) => e.text.length > FOLD_LAZILY_OVER).length;
    const cfg = cfgs[i % cfgs.length]!;
    const now = outcome(() => chunkElements(els, cfg));
    const before = outcome(() => chunkElementsPrevious(els, cfg));
    // compared as one string first: a difference is then shown short
    expect(JSON.stringify(now).length, `document ${i}`).toBe(JSON.stringify(before).length);
    expect(now, `document ${i}`).toEqual(before);
  }
  expect(large).toBeGreaterThan(20);
}, 120_000);
