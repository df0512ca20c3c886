import { describe, expect, test } from "bun:test";
import { ChunkConfigError, MAX_FREE_OVERLAP, MIN_MAX_CHARACTERS, parseChunkConfig } from "../../src/ingest/chunker/config.ts";

/** The error parseChunkConfig throws for `raw`; fails the test if it accepts it. */
function refusal(raw: unknown): ChunkConfigError {
  try {
    parseChunkConfig(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(ChunkConfigError);
    return e as ChunkConfigError;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe("max_characters lower bound", () => {
  test("is 5", () => expect(MIN_MAX_CHARACTERS).toBe(5));

  for (const max of [1, 2, 4]) {
    test(`${max} is refused naming the key and the bound`, () => {
      const e = refusal({ max_characters: max });
      expect(e.key).toBe("max_characters");
      expect(e.message).toBe(`chunk.max_characters must be at least 5, got ${max}`);
    });
  }

  test("the audit's 1-character chunks are refused before any chunking", () => {
    expect(refusal({ max_characters: 1 }).key).toBe("max_characters");
  });

  test("the bound itself is accepted", () => {
    expect(parseChunkConfig({ max_characters: 5 }).max_characters).toBe(5);
  });

  test("0 and negatives keep their type message", () => {
    expect(refusal({ max_characters: 0 }).message).toBe("chunk.max_characters must be a positive integer, got 0");
  });
});

describe("overlap bound", () => {
  test(`above ${MAX_FREE_OVERLAP} characters an overlap must leave half of each chunk to new text`, () => {
    const e = refusal({ max_characters: 10000, overlap: 9999 });
    expect(e.key).toBe("overlap");
    expect(e.message).toBe("chunk.overlap above 256 must be at most half of chunk.max_characters, got 9999 with max_characters 10000");
    expect(refusal({ max_characters: 10000, overlap: 5001 }).key).toBe("overlap");
    expect(refusal({ max_characters: 600, overlap: 301 }).key).toBe("overlap");
    // Against the default max_characters (10000).
    expect(refusal({ overlap: 5001 }).key).toBe("overlap");
  });

  test("half of max_characters is accepted", () => {
    expect(parseChunkConfig({ max_characters: 10000, overlap: 5000 }).overlap).toBe(5000);
    expect(parseChunkConfig({ max_characters: 600, overlap: 300 }).overlap).toBe(300);
  });

  test(`up to ${MAX_FREE_OVERLAP} characters any overlap below max_characters is accepted`, () => {
    expect(parseChunkConfig({ max_characters: 257, overlap: 256 }).overlap).toBe(256);
    expect(parseChunkConfig({ max_characters: 10, overlap: 9 }).overlap).toBe(9);
    expect(parseChunkConfig({ max_characters: 10000, overlap: 256 }).overlap).toBe(256);
  });

  test("257 needs max_characters of at least 514", () => {
    expect(refusal({ max_characters: 513, overlap: 257 }).key).toBe("overlap");
    expect(parseChunkConfig({ max_characters: 514, overlap: 257 }).overlap).toBe(257);
  });

  test("overlap not below max_characters keeps its message", () => {
    expect(refusal({ max_characters: 100, overlap: 100 }).message).toBe(
      "chunk.overlap must be less than chunk.max_characters, got 100 >= 100",
    );
  });
});
