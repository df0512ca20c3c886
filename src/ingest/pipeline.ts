/**
 * The parsing half of ingestion as one plain function: bytes → markdown with page markers →
 * typed elements → chunks. It runs inside the worker process (worker.ts) in production and
 * in-process in tests; everything needing models or storage happens afterwards in the server
 * process (ingest-job.ts).
 */
import { convert, ConversionError, type ConvertLimits } from "./convert/index.ts";
import { elementsOf } from "./elements.ts";
import { chunkElements, ChunkConfigError, parseChunkConfig } from "./chunker/index.ts";
import { countWords, IngestFailure, withoutPageMarkers, type ParsedDocument, type ParseStage } from "./parsed.ts";

export { countWords, IngestFailure, withoutPageMarkers, type ParsedDocument, type ParseStage } from "./parsed.ts";

export async function parseDocument(
  bytes: Uint8Array,
  contentType: string,
  chunk: unknown,
  opts: { limits?: Partial<ConvertLimits>; onStage?: (s: ParseStage, done?: number, total?: number) => void } = {},
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
    converted = await convert(bytes, contentType, opts.limits, opts.onStage && ((done, total) => opts.onStage!("converting", done, total)));
  } catch (e) {
    if (e instanceof ConversionError) throw new IngestFailure(e.message);
    throw e;
  }
  opts.onStage?.("chunking");
  const chunks = chunkElements(elementsOf(converted.markdown), config);
  if (chunks.length === 0) throw new IngestFailure("the document contains no text to index");
  return {
    markdown: converted.markdown,
    nbPages: converted.nbPages,
    chunks,
    nbWords: countWords(withoutPageMarkers(converted.markdown)),
  };
}
