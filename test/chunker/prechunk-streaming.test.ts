import { expect, test } from "bun:test";
import type { Element } from "../../src/ingest/elements.ts";
import { ChunkLimitError, chunkElements, parseChunkConfig } from "../../src/ingest/chunker/index.ts";

// Every pre-chunk of a document was built before the first became a chunk: 8 MB of "# h" lines made two
// million pre-chunks (an object and two arrays each) and the worker peaked at 1.7 GiB. They are made,
// merged and turned into chunk text one at a time, so the chunker reads its input only as far as it has got
// (the chunks themselves are unchanged: test/chunker/combine-linear.test.ts compares them with a reference).

function* headings(n: number, seen: { n: number }): Generator<Element> {
  for (let i = 0; i < n; i++) {
    seen.n++;
    yield { type: "Title", text: `heading ${i}`, level: 1 };
  }
}

test("the chunk limit stops the chunker after reading only the elements it chunked", () => {
  const seen = { n: 0 };
  const cfg = parseChunkConfig({ max_characters: 100, combine_text_under_n_chars: 50 });
  expect(() => chunkElements(headings(1_000_000, seen), cfg, 10)).toThrow(ChunkLimitError);
  // 10 chunks of a few merged headings each, plus the pre-chunk being looked at
  expect(seen.n).toBeGreaterThan(10);
  expect(seen.n).toBeLessThan(100);
});
