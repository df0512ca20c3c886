import { describe, expect, test } from "bun:test";
import type { Element } from "../../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig } from "../../src/ingest/chunker/index.ts";
import { splitPieces, splitText } from "../../src/ingest/chunker/split.ts";
import { rng } from "../helpers/seeded.ts";

/** At most `cap` pieces, so a splitter that stops advancing fails instead of running forever. */
function take(text: string, max: number, overlap: number, cap: number): string[] {
  const out: string[] = [];
  for (const p of splitPieces(text, max, overlap)) {
    out.push(p);
    if (out.length > cap) break;
  }
  return out;
}

describe("the splitter always advances", () => {
  test("a hard cut before a surrogate pair still advances (overlap max - 1 repeated the same piece forever)", () => {
    const text = "a" + "😀".repeat(20); // high surrogates at odd offsets: a cut at 10 moves back to 9
    const pieces = take(text, 10, 9, 100);
    expect(pieces.length).toBeLessThanOrEqual(text.length);
    expect(pieces[0]).toBe(text.slice(0, 9));
    expect(pieces.at(-1)!.endsWith("😀")).toBe(true);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(10);
      // No piece starts or ends inside a pair.
      expect(p.charCodeAt(0) >= 0xdc00 && p.charCodeAt(0) <= 0xdfff).toBe(false);
      expect(p.charCodeAt(p.length - 1) >= 0xd800 && p.charCodeAt(p.length - 1) <= 0xdbff).toBe(false);
    }
  });

  test("hard cuts advance by at least max_characters - overlap", () => {
    const rand = rng(3);
    for (let iter = 0; iter < 300; iter++) {
      const max = 5 + Math.floor(rand() * 300);
      const overlap = Math.floor(rand() * max);
      const n = max + Math.floor(rand() * 5000);
      let text = "";
      while (text.length < n) text += rand() < 0.3 ? "😀" : "x";
      // A cut never splits a pair, so without overlap a cut before one advances max - 1.
      const bound = 1 + Math.ceil((text.length - max) / (max - Math.max(overlap, 1)));
      expect(take(text, max, overlap, bound + 1).length).toBeLessThanOrEqual(bound);
    }
  });

  test("with separators the pieces stay proportional to length / (max - overlap)", () => {
    const rand = rng(11);
    for (let iter = 0; iter < 300; iter++) {
      const max = 5 + Math.floor(rand() * 300);
      const overlap = Math.floor(rand() * (max / 2 + 1));
      const p = rand() * 0.3;
      let text = "x";
      const n = 200 + Math.floor(rand() * 4000);
      while (text.length < n) text += rand() < p ? (rand() < 0.5 ? " " : "\n") : "x";
      const bound = 3 * Math.ceil(text.length / (max - overlap)) + 3;
      expect(take(text, max, overlap, bound + 1).length).toBeLessThanOrEqual(bound);
    }
  });

  test("output without surrogates is unchanged", () => {
    expect(splitText("abcdefghij", 5, 2)).toEqual(["abcde", "defgh", "ghij"]);
    expect(splitText("abcdefghijklmnop", 5, 0)).toEqual(["abcde", "fghij", "klmno", "p"]);
    expect(splitText("hello world foo", 10, 3)).toEqual(["hello", "lo world", "ld foo"]);
  });
});

describe("the audit's large overlap", () => {
  test("50 KB without spaces at max 10000 and the largest accepted overlap finishes in well under 3 s (ran past 120 s at 9999)", () => {
    const els: Element[] = [{ type: "NarrativeText", text: "x".repeat(50_000) }];
    expect(() => parseChunkConfig({ max_characters: 10000, overlap: 9999 })).toThrow("chunk.overlap");
    const t0 = performance.now();
    const chunks = chunkElements(els, parseChunkConfig({ max_characters: 10000, overlap: 5000 }));
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(chunks.length).toBe(9);
    expect(chunks.every((c) => c.text.length === 10000)).toBe(true);
  });
});
