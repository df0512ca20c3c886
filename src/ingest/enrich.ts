/**
 * The model work of ingestion that the built-in tier can do inside the worker process: the
 * document's language, its summary, its token count and the vectors of its chunk rows. The
 * built-in models are pure, deterministic JavaScript with no model files, so a worker computes
 * exactly what the server would (a test asserts it), on another core and off the server's event
 * loop. Local and remote models stay in the server (finish-batch.ts): loading an ONNX or GGUF
 * model per worker would multiply memory.
 *
 * Which parts move is decided per job by offloadPlan(); what the worker did not compute the
 * server computes itself, so every mix stays correct.
 */
import type { ModelRegistry } from "../models/registry.ts";
import { BUILTIN_EMBED_DIMS, BUILTIN_EMBED_ID, hashEmbed } from "../models/builtin-embed.ts";
import { BUILTIN_SUMMARY_ID, extractiveSummary } from "../models/builtin-summary.ts";
import { approxTokenCount, BUILTIN_TOKENS_ID } from "../models/builtin-tokens.ts";
import { detectLang } from "../models/lang.ts";
import type { VectorIndex } from "../store/vector.ts";
import { withoutPageMarkers, type ParsedDocument } from "./parsed.ts";

/** The summariser reads at most this much of the document: bounded time on a 10 MB file, and
 *  more than any local model's context anyway. */
export const SUMMARY_INPUT_CHARS = 200_000;
/** Vectors per IPC message: a document with many chunks streams them in parts of about 384 KB. */
export const VECTORS_PER_MESSAGE = 256;

/** What the worker computes after parsing. `lang` is the document's own (null: detect it). */
export interface EnrichRequest {
  lang: string | null;
  summary: boolean;
  tokens: boolean;
  embed: boolean;
}

/** On the wire. `vectors` holds the rows not already sent in `vectors` messages, flat. */
export interface EnrichedWire {
  lang: string;
  summary?: string;
  tokens?: number;
  /** Vectors computed: one per chunk row (the summary row first when `summary` is set and not
   *  blank), else one per parsed chunk. */
  count: number;
  dims: number;
  vectors?: Float32Array;
}

/** As the server keeps it: vectors one per row they cover (see EnrichedWire.count). */
export interface Enriched {
  lang: string;
  summary?: string;
  tokens?: number;
  vectors?: Float32Array[];
}

type Plan = Omit<EnrichRequest, "lang">;

/**
 * Which model work a worker may do for this server: only what the built-in models do, and
 * embeddings only while vectors go to a single table (a rebuild writes two, each with its model).
 */
export function offloadPlan(models: ModelRegistry, vectors: VectorIndex): Plan {
  const e = models.embedder();
  return {
    summary: models.summariser().id === BUILTIN_SUMMARY_ID,
    tokens: models.tokens().id === BUILTIN_TOKENS_ID,
    embed: e.id === BUILTIN_EMBED_ID && e.dims === BUILTIN_EMBED_DIMS && !(vectors as { building?: unknown }).building,
  };
}

export const offloadsAny = (p: Plan) => p.summary || p.tokens || p.embed;

/** Input of the summary and of token counting: the markdown without its page markers. */
export const plainText = (parsed: ParsedDocument) => withoutPageMarkers(parsed.markdown);

/**
 * Runs in the worker. `onVectors` receives full parts of VECTORS_PER_MESSAGE vectors (flat) as
 * they are made; the rest comes back in the result. `onStage` reports progress.
 */
export function enrich(
  parsed: ParsedDocument,
  req: EnrichRequest,
  out: { onStage?: (stage: "summarising" | "embedding", done: number, total: number) => void; onVectors?: (flat: Float32Array) => void } = {},
): EnrichedWire {
  const plain = plainText(parsed);
  const lang = req.lang || detectLang(plain);
  const got: EnrichedWire = { lang, count: 0, dims: BUILTIN_EMBED_DIMS };
  if (req.summary) {
    out.onStage?.("summarising", 0, 1);
    got.summary = extractiveSummary(plain.slice(0, SUMMARY_INPUT_CHARS), lang).text;
  }
  if (req.tokens) got.tokens = approxTokenCount(plain);
  if (!req.embed) return got;
  const texts = got.summary?.trim() ? [got.summary, ...parsed.chunks.map((c) => c.text)] : parsed.chunks.map((c) => c.text);
  const dims = BUILTIN_EMBED_DIMS;
  // Without a listener every vector comes back in the result.
  const perPart = out.onVectors ? VECTORS_PER_MESSAGE : Math.max(texts.length, 1);
  // Parts are sized to be filled exactly: a typed-array view would carry its whole buffer.
  let part = new Float32Array(Math.min(perPart, texts.length) * dims);
  let inPart = 0;
  out.onStage?.("embedding", 0, texts.length);
  for (let i = 0; i < texts.length; i++) {
    part.set(hashEmbed(texts[i]!, dims), inPart * dims);
    if (++inPart === perPart && i + 1 < texts.length) {
      out.onVectors!(part);
      out.onStage?.("embedding", i + 1, texts.length);
      part = new Float32Array(Math.min(perPart, texts.length - i - 1) * dims);
      inPart = 0;
    }
  }
  got.count = texts.length;
  got.vectors = part;
  return got;
}

/** Server side: the parts received and the tail of the result as one vector per row. */
export function assembleEnriched(wire: EnrichedWire, parts: Float32Array[]): Enriched {
  const { count, dims, vectors: tail, ...rest } = wire;
  if (!tail) return rest;
  const vectors: Float32Array[] = [];
  for (const flat of [...parts, tail]) {
    for (let at = 0; at < flat.length; at += dims) vectors.push(flat.subarray(at, at + dims));
  }
  if (vectors.length !== count) throw new Error(`the worker sent ${vectors.length} vectors for ${count} texts`);
  return { ...rest, vectors };
}
