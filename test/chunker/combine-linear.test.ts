import { describe, expect, test } from "bun:test";
import type { Element, ElementType } from "../../src/ingest/elements.ts";
import { markdownToElements } from "../../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig, type ChunkConfig } from "../../src/ingest/chunker/index.ts";
import { buildPreChunks, combinePreChunks, isTable, TEXT_SEPARATOR, type PreChunk } from "../../src/ingest/chunker/prechunk.ts";
import { rng } from "../helpers/seeded.ts";

/** The combiner as it was before it was made linear (concat on every merge): the reference output. */
function quadraticCombine(pcs: PreChunk[], cfg: ChunkConfig): PreChunk[] {
  const out: PreChunk[] = [];
  let acc: PreChunk | null = null;
  let accTextLen = 0;
  for (const pc of pcs) {
    const segs = pc.segments;
    if (acc) {
      const ownSegs = pc.overlapPrefix ? segs.slice(1) : segs;
      let combinedLen = accTextLen;
      let count = acc.segments.length;
      for (const s of ownSegs) {
        combinedLen += (count ? TEXT_SEPARATOR.length : 0) + s.length;
        count++;
      }
      if (!acc.elements.some(isTable) && !pc.elements.some(isTable) && accTextLen < cfg.combine_text_under_n_chars && combinedLen <= cfg.max_characters) {
        acc = { elements: acc.elements.concat(pc.elements), overlapPrefix: acc.overlapPrefix, segments: acc.segments.concat(ownSegs) };
        accTextLen = combinedLen;
        continue;
      }
      out.push(acc);
    }
    acc = pc;
    accTextLen = segs.reduce((n, s, i) => n + s.length + (i ? TEXT_SEPARATOR.length : 0), 0);
  }
  if (acc) out.push(acc);
  return out;
}

describe("combining pre-chunks", () => {
  test("same pre-chunks as the concat-based combiner on random sections, tables and overlaps", () => {
    const rand = rng(7);
    const types: ElementType[] = ["Title", "NarrativeText", "NarrativeText", "ListItem", "Table"];
    for (let iter = 0; iter < 400; iter++) {
      const els: Element[] = Array.from({ length: Math.floor(rand() * 60) }, () => ({
        type: types[Math.floor(rand() * types.length)]!,
        text: "w".repeat(1 + Math.floor(rand() * 30)),
        page: 1 + Math.floor(rand() * 4),
      }));
      const max = 40 + Math.floor(rand() * 200);
      const cfg = parseChunkConfig({
        max_characters: max,
        combine_text_under_n_chars: Math.floor(rand() * (max + 1)),
        overlap: rand() < 0.5 ? 0 : Math.floor(rand() * (max / 2)),
        overlap_all: rand() < 0.5,
        multipage_sections: rand() < 0.5,
      });
      const pcs = buildPreChunks(els, cfg);
      const want = quadraticCombine(pcs, cfg);
      expect(combinePreChunks(pcs, cfg)).toEqual(want);
      // The combiner must not have grown the pre-chunks it was given.
      expect(quadraticCombine(pcs, cfg)).toEqual(want);
    }
  });

  test("100,000 tiny sections merged into one chunk in well under 3 s (took over 120 s)", () => {
    const md = "# t\n\nx\n\n".repeat(100_000);
    const els = markdownToElements(md);
    const t0 = performance.now();
    const chunks = chunkElements(els, parseChunkConfig({ max_characters: 100_000_000 }));
    const ms = performance.now() - t0;
    expect(chunks).toEqual([{ text: Array(100_000).fill("t\n\nx").join("\n\n"), pages: [] }]);
    expect(ms).toBeLessThan(3000);
  });

  test("100,000 tiny sections at max_characters 100000 in well under 3 s (took 12.6 s)", () => {
    const els = markdownToElements("# t\n\nx\n\n".repeat(100_000));
    const t0 = performance.now();
    const chunks = chunkElements(els, parseChunkConfig({ max_characters: 100_000 }));
    const ms = performance.now() - t0;
    expect(chunks.every((c) => c.text.length <= 100_000)).toBe(true);
    expect(chunks.map((c) => c.text).join("\n\n")).toBe(Array(100_000).fill("t\n\nx").join("\n\n"));
    expect(ms).toBeLessThan(3000);
  });
});
