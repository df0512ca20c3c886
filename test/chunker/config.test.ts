import { describe, expect, test } from "bun:test";
import { ChunkConfigError, parseChunkConfig, type ChunkConfig } from "../../src/ingest/chunker/config.ts";

const PLATFORM: ChunkConfig = {
  strategy: "by_title",
  max_characters: 10000,
  new_after_n_chars: 10000,
  overlap: 0,
  overlap_all: false,
  combine_text_under_n_chars: 1000,
  multipage_sections: true,
};

describe("parseChunkConfig defaults", () => {
  const cases: [string, unknown, ChunkConfig][] = [
    ["undefined", undefined, PLATFORM],
    ["null", null, PLATFORM],
    ["{}", {}, PLATFORM],
    ["only undefined values", { overlap: undefined }, PLATFORM],
    ["strategy only: combine follows max", { strategy: "by_title" }, { ...PLATFORM, combine_text_under_n_chars: 10000 }],
    [
      "max only: new_after and combine follow it",
      { max_characters: 500 },
      { ...PLATFORM, max_characters: 500, new_after_n_chars: 500, combine_text_under_n_chars: 500 },
    ],
    ["null key counts as absent", { max_characters: 300, overlap: null }, {
      ...PLATFORM, max_characters: 300, new_after_n_chars: 300, combine_text_under_n_chars: 300,
    }],
    [
      "everything given",
      { strategy: "by_title", max_characters: 800, new_after_n_chars: 600, overlap: 50, overlap_all: true, combine_text_under_n_chars: 0, multipage_sections: false },
      { strategy: "by_title", max_characters: 800, new_after_n_chars: 600, overlap: 50, overlap_all: true, combine_text_under_n_chars: 0, multipage_sections: false },
    ],
    [
      "basic ignores by_title-only keys",
      { strategy: "basic", combine_text_under_n_chars: 5000, multipage_sections: false, max_characters: 100 },
      { strategy: "basic", max_characters: 100, new_after_n_chars: 100, overlap: 0, overlap_all: false, combine_text_under_n_chars: 0, multipage_sections: true },
    ],
    ["new_after 0 is valid", { new_after_n_chars: 0 }, { ...PLATFORM, new_after_n_chars: 0, combine_text_under_n_chars: 10000 }],
    ["new_after equal to max is valid", { max_characters: 10, new_after_n_chars: 10 }, {
      ...PLATFORM, max_characters: 10, new_after_n_chars: 10, combine_text_under_n_chars: 10,
    }],
    ["overlap max-1 is valid", { max_characters: 10, overlap: 9 }, {
      ...PLATFORM, max_characters: 10, new_after_n_chars: 10, overlap: 9, combine_text_under_n_chars: 10,
    }],
  ];
  for (const [name, raw, want] of cases) {
    test(name, () => expect(parseChunkConfig(raw)).toEqual(want));
  }
});

describe("parseChunkConfig errors name the key", () => {
  const cases: [string, unknown, string][] = [
    ["array", [], "chunk"],
    ["string", "by_title", "chunk"],
    ["number", 5, "chunk"],
    ["unknown key", { max_chars: 5 }, "max_chars"],
    ["unstructured-only key", { max_tokens: 5 }, "max_tokens"],
    ["strategy unknown", { strategy: "by_page" }, "strategy"],
    ["strategy wrong type", { strategy: 1 }, "strategy"],
    ["max string", { max_characters: "500" }, "max_characters"],
    ["max float", { max_characters: 1.5 }, "max_characters"],
    ["max zero", { max_characters: 0 }, "max_characters"],
    ["max negative", { max_characters: -5 }, "max_characters"],
    ["max NaN", { max_characters: Number.NaN }, "max_characters"],
    ["max Infinity", { max_characters: Number.POSITIVE_INFINITY }, "max_characters"],
    ["new_after negative", { new_after_n_chars: -1 }, "new_after_n_chars"],
    ["new_after float", { new_after_n_chars: 2.5 }, "new_after_n_chars"],
    ["new_after > max", { max_characters: 100, new_after_n_chars: 101 }, "new_after_n_chars"],
    ["new_after > default max", { new_after_n_chars: 10001 }, "new_after_n_chars"],
    ["overlap negative", { overlap: -1 }, "overlap"],
    ["overlap string", { overlap: "10" }, "overlap"],
    ["overlap == max", { max_characters: 100, overlap: 100 }, "overlap"],
    ["overlap > max", { max_characters: 100, overlap: 150 }, "overlap"],
    ["overlap_all not bool", { overlap_all: "true" }, "overlap_all"],
    ["overlap_all number", { overlap_all: 1 }, "overlap_all"],
    ["combine negative", { combine_text_under_n_chars: -1 }, "combine_text_under_n_chars"],
    ["combine > max", { max_characters: 100, combine_text_under_n_chars: 101 }, "combine_text_under_n_chars"],
    ["combine float", { combine_text_under_n_chars: 0.5 }, "combine_text_under_n_chars"],
    ["combine wrong type with basic", { strategy: "basic", combine_text_under_n_chars: "x" }, "combine_text_under_n_chars"],
    ["multipage not bool", { multipage_sections: "no" }, "multipage_sections"],
    ["multipage wrong type with basic", { strategy: "basic", multipage_sections: 0 }, "multipage_sections"],
  ];
  for (const [name, raw, key] of cases) {
    test(name, () => {
      let err: unknown;
      try {
        parseChunkConfig(raw);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ChunkConfigError);
      const ce = err as ChunkConfigError;
      expect(ce.key).toBe(key);
      expect(ce.message).toContain(key);
    });
  }

  test("message shows the bad value", () => {
    expect(() => parseChunkConfig({ max_characters: -5 })).toThrow("chunk.max_characters must be a positive integer, got -5");
  });
});
