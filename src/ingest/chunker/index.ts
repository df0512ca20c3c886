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
import { combinedPreChunks, isTable, preChunks, preChunkText, type PreChunk } from "./prechunk.ts";
import { splitPieces } from "./split.ts";
import { IngestFailure } from "../parsed.ts";

export { parseChunkConfig, ChunkConfigError, PLATFORM_DEFAULT, MIN_MAX_CHARACTERS, MAX_FREE_OVERLAP } from "./config.ts";
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

/**
 * The most chunks one document may make. The server holds every chunk of a document with its
 * vector until the document is stored: 200,001 chunks grew it by 2.55 GiB, about 13 KB each, so
 * this cap keeps one document under about 650 MB. Ordinary documents are far below it: the
 * platform default makes about 1,150 chunks per 1 MB of markdown (11,421 for a 10 MB
 * one with a table on each of its 5,710 pages), a 200-page PDF about 200.
 */
export const MAX_CHUNKS_PER_DOCUMENT = 50_000;

/** A document that would make more than MAX_CHUNKS_PER_DOCUMENT chunks; the message is for the user. */
export class ChunkLimitError extends IngestFailure {
  constructor(
    public limit: number,
    cfg: ChunkConfig,
  ) {
    const raise = [`chunk.max_characters (now ${cfg.max_characters})`];
    if (cfg.strategy === "by_title" && cfg.combine_text_under_n_chars < cfg.max_characters) {
      raise.push(`chunk.combine_text_under_n_chars (now ${cfg.combine_text_under_n_chars})`);
    }
    let msg =
      `the document makes more than ${limit} chunks, the most one document may have: ` +
      `raise ${raise.join(" or ")} for fewer, larger chunks`;
    if (cfg.overlap > 0) msg += `, or lower chunk.overlap (now ${cfg.overlap})`;
    super(msg);
    this.name = "ChunkLimitError";
  }
}

function chunkTexts(pc: PreChunk, cfg: ChunkConfig): Iterable<string> {
  if (pc.elements.length === 1 && isTable(pc.elements[0]!)) {
    // A table keeps its row lines (no whitespace folding) so an oversized one splits on rows.
    const raw = pc.elements[0]!.text;
    if (!raw.trim()) return [];
    return splitPieces(raw.trim(), cfg.max_characters, cfg.overlap);
  }
  const text = preChunkText(pc);
  if (!text.length) return [];
  return splitPieces(text, cfg.max_characters, cfg.overlap);
}

/** Throws ChunkLimitError as soon as the chunks would pass `limit`, before building the rest. */
export function chunkElements(elements: Iterable<Element>, config: ChunkConfig, limit = MAX_CHUNKS_PER_DOCUMENT): ChunkOut[] {
  // Streamed: each pre-chunk becomes chunk text and is dropped before the next is built.
  let pcs: Iterable<PreChunk> = preChunks(elements, config);
  if (config.strategy === "by_title") pcs = combinedPreChunks(pcs, config);
  const out: ChunkOut[] = [];
  for (const pc of pcs) {
    const pages = pageSpan(pc.elements);
    for (const text of chunkTexts(pc, config)) {
      if (!text.trim()) continue;
      if (out.length >= limit) throw new ChunkLimitError(limit, config);
      out.push({ text, pages: pages.slice() });
    }
  }
  return out;
}
