/**
 * What parsing produces and the small text helpers both sides of ingestion share. Kept apart
 * from pipeline.ts so the server process, which only receives parsed documents, never loads
 * the document converters (mammoth, unpdf, the chunker): tens of MB of resident memory.
 */

export interface ParsedDocument {
  /** Converted markdown, with `<!-- page N -->` lines for paged formats (kept as the converted form). */
  markdown: string;
  nbPages: number;
  chunks: { text: string; pages: number[] }[];
  nbWords: number;
}

export type ParseStage = "converting" | "chunking";

/** A failure whose message is the document's statusMsg. Anything else is a bug (logged, generic message). */
export class IngestFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IngestFailure";
  }
}

const MARKER_LINES = /^<!-- page \d+ -->[ \t]*$/gm;

/** The markdown without page-marker lines: what summaries and token counts see. */
export function withoutPageMarkers(markdown: string): string {
  return markdown.replace(MARKER_LINES, "");
}

const WORD_RE = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu;

/** Words = runs of letters/digits (joined by an inner apostrophe, dot or hyphen), markup ignored. */
export function countWords(text: string): number {
  let n = 0;
  WORD_RE.lastIndex = 0;
  while (WORD_RE.test(text)) n++;
  return n;
}
