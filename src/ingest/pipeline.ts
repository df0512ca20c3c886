/**
 * The parsing half of ingestion as one plain function: bytes → markdown with page markers →
 * typed elements → chunks. It runs inside the worker process (worker.ts) in production and
 * in-process in tests; everything needing models or storage happens afterwards in the server
 * process (ingest-job.ts).
 */
import { convert, ConversionError, type ConvertLimits } from "./convert/index.ts";
import { markdownToElements } from "./elements.ts";
import { chunkElements, ChunkConfigError, parseChunkConfig } from "./chunker/index.ts";

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
  while (WORD_RE.exec(text)) n++;
  return n;
}

export async function parseDocument(
  bytes: Uint8Array,
  contentType: string,
  chunk: unknown,
  opts: { limits?: Partial<ConvertLimits>; onStage?: (s: ParseStage) => void } = {},
): Promise<ParsedDocument> {
  let config;
  try {
    // Checked first: a bad chunk key fails at once, before an expensive conversion.
    config = parseChunkConfig(chunk);
  } catch (e) {
    if (e instanceof ChunkConfigError) throw new IngestFailure(`invalid chunking configuration: ${e.message}`);
    throw e;
  }
  opts.onStage?.("converting");
  let converted;
  try {
    converted = await convert(bytes, contentType, opts.limits);
  } catch (e) {
    if (e instanceof ConversionError) throw new IngestFailure(e.message);
    throw e;
  }
  opts.onStage?.("chunking");
  const chunks = chunkElements(markdownToElements(converted.markdown), config);
  if (chunks.length === 0) throw new IngestFailure("the document contains no text to index");
  return {
    markdown: converted.markdown,
    nbPages: converted.nbPages,
    chunks,
    nbWords: countWords(withoutPageMarkers(converted.markdown)),
  };
}
