import { describe, expect, test } from "bun:test";
import type { Element } from "../../src/ingest/elements.ts";
import { markdownToElements } from "../../src/ingest/elements.ts";
import { ChunkLimitError, chunkElements, MAX_CHUNKS_PER_DOCUMENT, parseChunkConfig } from "../../src/ingest/chunker/index.ts";
import { IngestFailure } from "../../src/ingest/parsed.ts";

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("chunks per document", () => {
  test("the cap is 50,000", () => expect(MAX_CHUNKS_PER_DOCUMENT).toBe(50_000));

  test("450 KB of short words at the smallest max_characters fails fast with a message naming the limit and the key", () => {
    // The audit's case ("ab " x 100k made 200,001 chunks) at the lowest accepted max_characters (75,000 chunks).
    const els = markdownToElements("ab ".repeat(150_000));
    const t0 = performance.now();
    const e = thrown(() => chunkElements(els, parseChunkConfig({ max_characters: 5 })));
    const ms = performance.now() - t0;
    expect(e).toBeInstanceOf(ChunkLimitError);
    // The worker ends an IngestFailure FAILED at once, with this message as statusMsg.
    expect(e).toBeInstanceOf(IngestFailure);
    expect((e as Error).message).toBe(
      "the document makes more than 50000 chunks, the most one document may have: " +
        "raise chunk.max_characters (now 5) for fewer, larger chunks",
    );
    expect(ms).toBeLessThan(3000);
  });

  test("many small sections name combine_text_under_n_chars and overlap too", () => {
    const els = markdownToElements("# t\n\nx\n\n".repeat(60_000));
    const e = thrown(() => chunkElements(els, parseChunkConfig({ combine_text_under_n_chars: 0, overlap: 2 })));
    expect(e).toBeInstanceOf(ChunkLimitError);
    expect((e as Error).message).toBe(
      "the document makes more than 50000 chunks, the most one document may have: " +
        "raise chunk.max_characters (now 10000) or chunk.combine_text_under_n_chars (now 0) for fewer, larger chunks, " +
        "or lower chunk.overlap (now 2)",
    );
  });

  test("exactly the limit is allowed, one more is not", () => {
    const els: Element[] = Array.from({ length: 7 }, (_, i) => ({ type: "NarrativeText", text: `p${i}` }));
    const cfg = parseChunkConfig({ strategy: "basic", new_after_n_chars: 0 });
    expect(chunkElements(els, cfg, 7).length).toBe(7);
    expect(thrown(() => chunkElements(els, cfg, 6))).toBeInstanceOf(ChunkLimitError);
  });

  test("stops at the cap instead of splitting the whole element first", () => {
    // 20 MB in one element at 5 characters would be 4 million pieces; stopping at 1,000 reads
    // about 5 KB of it.
    const els: Element[] = [{ type: "NarrativeText", text: "x".repeat(20_000_000) }];
    const cfg = parseChunkConfig({ max_characters: 5 });
    const t0 = performance.now();
    expect(thrown(() => chunkElements(els, cfg, 1000))).toBeInstanceOf(ChunkLimitError);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  test("ordinary documents stay far below it", () => {
    const md = ("## Section\n\n" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n".repeat(20) + "\n| a | b |\n|---|---|\n| 1 | 2 |\n\n").repeat(2000);
    const n = chunkElements(markdownToElements(md), parseChunkConfig(undefined)).length;
    expect(n).toBe(4000);
  });
});
