/*
 * Elements → chunks with the semantics of unstructured's chunk_by_title / chunk_elements.
 *
 * Pages: a chunk's `pages` is the inclusive range from the lowest to the highest page of the
 * elements it was formed from (a span, so a page without text between two pages is included).
 * Text borrowed as an overlap prefix does not add its page, as unstructured keeps only the chunk's
 * own elements' metadata. Chunks whose text is only whitespace are dropped.
 */
import type { Element } from "../elements.ts";
import type { ChunkConfig } from "./config.ts";
import { buildPreChunks, combinePreChunks, isTable, preChunkText, type PreChunk } from "./prechunk.ts";
import { splitText } from "./split.ts";

export { parseChunkConfig, ChunkConfigError, PLATFORM_DEFAULT } from "./config.ts";
export type { ChunkConfig } from "./config.ts";

export interface ChunkOut {
  text: string;
  /** Ascending unique 1-based pages; [] when no element has a page. */
  pages: number[];
}

function pageSpan(elements: Element[]): number[] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const e of elements) {
    if (e.page === undefined) continue;
    if (e.page < lo) lo = e.page;
    if (e.page > hi) hi = e.page;
  }
  if (lo > hi) return [];
  const pages: number[] = [];
  for (let p = lo; p <= hi; p++) pages.push(p);
  return pages;
}

function chunkTexts(pc: PreChunk, cfg: ChunkConfig): string[] {
  if (pc.elements.length === 1 && isTable(pc.elements[0]!)) {
    // A table keeps its row lines (no whitespace folding) so an oversized one splits on rows.
    const raw = pc.elements[0]!.text;
    if (!raw.trim()) return [];
    return splitText(raw.trim(), cfg.max_characters, cfg.overlap);
  }
  const text = preChunkText(pc);
  if (!text) return [];
  return splitText(text, cfg.max_characters, cfg.overlap);
}

export function chunkElements(elements: Element[], config: ChunkConfig): ChunkOut[] {
  let pcs = buildPreChunks(elements, config);
  if (config.strategy === "by_title") pcs = combinePreChunks(pcs, config);
  const out: ChunkOut[] = [];
  for (const pc of pcs) {
    const pages = pageSpan(pc.elements);
    for (const text of chunkTexts(pc, config)) {
      if (text.trim()) out.push({ text, pages: pages.slice() });
    }
  }
  return out;
}
