// The chunker as it was before a large paragraph's whitespace was folded as it is split instead of into a new string (the
// oracle of test/chunker/fold-while-splitting-same-chunks.test.ts).
/*
 * Pre-chunks: groups of whole elements staged to become one chunk (or, for a single oversized
 * element, several text-split chunks). Semantics follow unstructured's PreChunker,
 * PreChunkBuilder, PreChunk and PreChunkCombiner with table isolation on (its default):
 * - a Table always sits alone in a pre-chunk, never receives an overlap prefix and never gives one;
 * - fitting is judged on raw element text lengths plus "\n\n" separators (the overlap prefix counts
 *   as a segment), while the chunk text itself uses whitespace-normalised text (code kept as is);
 * - a pre-chunk whose text is already longer than the soft max (strictly greater) takes no more.
 */
import type { Element } from "../../../src/ingest/elements.ts";
import type { ChunkConfig } from "../../../src/ingest/chunker/config.ts";

export const TEXT_SEPARATOR = "\n\n";
const SEP_LEN = TEXT_SEPARATOR.length;

export interface PreChunk {
  elements: Element[];
  overlapPrefix: string;
  /** Non-empty chunk-text segments: the overlap prefix (if any), then each element's. */
  segments: string[];
}

export function isTable(e: Element): boolean {
  return e.type === "Table";
}

const NEEDS_FOLD = /\s\s|[^\S ]/;

/** The chunk-text segment of one element; "" contributes nothing. */
function segmentOf(e: Element): string {
  if (!e.text) return "";
  if (e.type === "CodeSnippet") return e.text;
  const t = e.text.trim();
  // A table is alone in its pre-chunk and its chunks are cut from its raw text (chunkTexts), so only
  // whether this is empty counts. Folding a 76 MB CSV table's whitespace took 580 MB: the regex
  // engine kept a range for each of its 40 million runs of spaces.
  if (isTable(e)) return t;
  return NEEDS_FOLD.test(t) ? t.replace(/\s+/g, " ") : t;
}

function makePreChunk(elements: Element[], overlapPrefix: string): PreChunk {
  const segments: string[] = overlapPrefix ? [overlapPrefix] : [];
  for (const e of elements) {
    const s = segmentOf(e);
    if (s) segments.push(s);
  }
  return { elements, overlapPrefix, segments };
}

export function preChunkText(pc: PreChunk): string {
  return pc.segments.join(TEXT_SEPARATOR);
}

type Boundary = (e: Element) => boolean;

/** Stateful page-change detector: the first element opens a page, a different explicit page breaks. */
function pageChange(): Boundary {
  let current = 1;
  let first = true;
  return (e) => {
    if (first) {
      first = false;
      current = e.page ?? 1;
      return false;
    }
    if (e.page === undefined || e.page === current) return false;
    current = e.page;
    return true;
  };
}

function boundaries(cfg: ChunkConfig): Boundary[] {
  if (cfg.strategy !== "by_title") return [];
  const preds: Boundary[] = [(e) => e.type === "Title"];
  if (!cfg.multipage_sections) preds.push(pageChange());
  return preds;
}

export function buildPreChunks(elements: Iterable<Element>, cfg: ChunkConfig): PreChunk[] {
  return [...preChunks(elements, cfg)];
}

/**
 * The pre-chunks one at a time: a document of 2,000,000 one-line sections made as many pre-chunks,
 * each an object and two arrays, and holding them all at once took 400 MB of a worker's memory.
 */
export function* preChunks(elements: Iterable<Element>, cfg: ChunkConfig): Generator<PreChunk> {
  const ready: PreChunk[] = [];
  const preds = boundaries(cfg);
  const softMax = Math.min(cfg.new_after_n_chars, cfg.max_characters);
  const interOverlap = cfg.overlap_all ? cfg.overlap : 0;

  let els: Element[] = [];
  let prefix = "";
  let nSegs = 0;
  let textLen = 0;
  let hasTable = false;

  const textLength = () => textLen + (nSegs ? (nSegs - 1) * SEP_LEN : 0);
  const willFit = (e: Element): boolean => {
    if (isTable(e)) return els.length === 0;
    if (hasTable) return false;
    if (els.length === 0) return true;
    if (textLength() > softMax) return false;
    return cfg.max_characters - textLen - SEP_LEN * nSegs >= e.text.length;
  };
  const flush = () => {
    if (!els.length) return;
    const pc = makePreChunk(els, prefix);
    ready.push(pc);
    let next = "";
    if (interOverlap && !(els.length === 1 && isTable(els[0]!))) {
      next = preChunkText(pc).slice(-interOverlap).trim();
    }
    els = [];
    hasTable = false;
    prefix = next;
    nSegs = next ? 1 : 0;
    textLen = next.length;
  };

  for (const e of elements) {
    // Every predicate sees every element: the page detector keeps state.
    let boundary = false;
    for (const p of preds) if (p(e)) boundary = true;
    if (boundary || !willFit(e)) flush();
    if (els.length === 0 && isTable(e)) {
      prefix = "";
      nSegs = 0;
      textLen = 0;
    }
    els.push(e);
    if (isTable(e)) hasTable = true;
    if (e.text) {
      nSegs++;
      textLen += e.text.length;
    }
    if (ready.length) {
      yield* ready;
      ready.length = 0;
    }
  }
  flush();
  yield* ready;
}

/** by_title only: merge a run of small pre-chunks while the first is under the threshold and all fit. */
export function combinePreChunks(pcs: Iterable<PreChunk>, cfg: ChunkConfig): PreChunk[] {
  return [...combinedPreChunks(pcs, cfg)];
}

/** combinePreChunks one merged pre-chunk at a time, reading its input as it goes. */
export function* combinedPreChunks(pcs: Iterable<PreChunk>, cfg: ChunkConfig): Generator<PreChunk> {
  let acc: PreChunk | null = null;
  let accTextLen = 0;
  let accHasTable = false;
  // The first merge copies acc's arrays, later merges push into them: copying on every merge
  // (concat) made a run of k merged sections cost O(k²) (100k headings: minutes).
  let accOwned = false;

  for (const pc of pcs) {
    const segs = pc.segments;
    const pcHasTable = pc.elements.some(isTable);
    if (acc) {
      const from = pc.overlapPrefix ? 1 : 0;
      let combinedLen = accTextLen;
      let count = acc.segments.length;
      for (let i = from; i < segs.length; i++) {
        combinedLen += (count ? SEP_LEN : 0) + segs[i]!.length;
        count++;
      }
      const fits =
        !accHasTable &&
        !pcHasTable &&
        accTextLen < cfg.combine_text_under_n_chars &&
        combinedLen <= cfg.max_characters;
      if (fits) {
        if (!accOwned) {
          acc = { elements: acc.elements.slice(), overlapPrefix: acc.overlapPrefix, segments: acc.segments.slice() };
          accOwned = true;
        }
        for (const e of pc.elements) acc.elements.push(e);
        // The later prefix is dropped: it repeats the end of the accumulated text.
        for (let i = from; i < segs.length; i++) acc.segments.push(segs[i]!);
        accTextLen = combinedLen;
        continue;
      }
      yield acc;
    }
    acc = pc;
    accOwned = false;
    accHasTable = pcHasTable;
    accTextLen = segs.reduce((n, s, i) => n + s.length + (i ? SEP_LEN : 0), 0);
  }
  if (acc) yield acc;
}
