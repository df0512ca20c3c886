/**
 * Entry of an ingestion worker process (`kbqa worker`, spawned by pool.ts). Parsing and preview
 * rendering run here so a hostile file can be killed (time, memory) without touching the server.
 *
 * Protocol: Bun IPC with `serialization: "advanced"` (structured clone, so bytes travel as
 * Uint8Array). Requests are handled one at a time, in the order received; the pool may queue
 * several small ones (pool.ts pipelining), each answered with its own `done` or `error`.
 *
 *   parent → worker
 *     {type:"parse",    id, path? | bytes?, contentType, chunk, limits?, enrich?, progress?, inParts?}
 *     {type:"previews", id, path? | bytes?, pages: number[]}      0-based page indices
 *     {type:"batch", requests: [...]}                            several of the above, in order
 *   worker → parent (messages of one event-loop turn travel together as {type:"batch", messages})
 *     {type:"ready"}                                             once, after start
 *     {type:"stage",   id, stage, done?, total?}                 progress (only with progress: true)
 *     {type:"vectors", id, data: Float32Array}                   a full part of a document's vectors
 *     {type:"markdown", id, part: string}                        with inParts: a slice of the markdown, in order
 *     {type:"chunks",  id, chunks}                               with inParts: the next parsed chunks, in order
 *     {type:"preview", id, page, size: "SMALL" | "MEDIUM", png}   one per rendered image
 *     {type:"preview-skipped", id, page, reason}                 a page pdf.js could not draw; the next is drawn
 *     {type:"done",    id, result?}                              parse: ParsedDocument & {enriched?}, or without
 *                                                                markdown and chunks and with inParts: true when they came in parts
 *     {type:"error",   id, failure: boolean, message}            failure=true: user-facing reason
 *
 * With `enrich` the worker also runs the built-in models on the parsed document (enrich.ts).
 *
 * Anything a library prints goes to stdout/stderr and never mixes with the protocol. The worker
 * exits when the IPC channel closes or its parent dies, so a SIGKILLed server leaves no orphans
 * (on Linux the kernel kills it at once, even in the middle of a parse: prctl PR_SET_PDEATHSIG).
 */
import { readFileSync } from "node:fs";
import { IngestFailure, parseDocument, type ParsedDocument } from "./pipeline.ts";
import type { ConvertLimits } from "./convert/index.ts";
import { enrich, type EnrichRequest } from "./enrich.ts";
import { stderrLogger } from "../context.ts";
import { dieWithParent } from "../runtime/parent-death.ts";

export type WorkerRequest =
  | {
    type: "parse"; id: number; path?: string; bytes?: Uint8Array; contentType: string; chunk: unknown;
    limits?: Partial<ConvertLimits>; enrich?: EnrichRequest; progress?: boolean;
    /** A large result's markdown and chunks may come in parts (sendInParts) before its `done`. */
    inParts?: boolean;
  }
  | { type: "previews"; id: number; path?: string; bytes?: Uint8Array; pages: number[] };

/** What travels: one request, or several written together (handled in order, as if sent apart). */
export type WorkerEnvelope = WorkerRequest | { type: "batch"; requests: WorkerRequest[] };

export type WorkerMessage =
  | { type: "ready" }
  | { type: "stage"; id: number; stage: WorkerStage; done?: number; total?: number }
  | { type: "vectors"; id: number; data: Float32Array }
  | { type: "markdown"; id: number; part: string }
  | { type: "chunks"; id: number; chunks: ParsedDocument["chunks"] }
  | { type: "preview"; id: number; page: number; size: "SMALL" | "MEDIUM"; png: Uint8Array }
  | { type: "preview-skipped"; id: number; page: number; reason: string }
  | { type: "done"; id: number; result?: unknown }
  | { type: "error"; id: number; failure: boolean; message: string };

/** What travels back: one message, or those of one event-loop turn together. */
export type WorkerReply = WorkerMessage | { type: "batch"; messages: WorkerMessage[] };

export type WorkerStage = "converting" | "chunking" | "summarising" | "embedding";

// A request's end (`done`, `error`) is sent once per turn of the event loop: small documents of
// one request batch are handled within one turn, and one IPC message (one serialisation, one
// write, one wake-up of the server) per document cost both processes more than the documents'
// conversion. Progress, vector parts and previews of a large document go out at once (with
// anything waiting before them, in order): they are sent from inside long synchronous work.
let outbox: WorkerMessage[] = [];
const flushOutbox = () => {
  if (!outbox.length) return;
  const out = outbox;
  outbox = [];
  process.send!(out.length === 1 ? out[0]! : ({ type: "batch", messages: out } satisfies WorkerReply));
};
const send = (m: WorkerMessage) => {
  outbox.push(m);
  if (m.type !== "done" && m.type !== "error") flushOutbox();
  else if (outbox.length === 1) setImmediate(flushOutbox);
};

async function bytesOf(req: { path?: string; bytes?: Uint8Array }): Promise<Uint8Array> {
  if (req.bytes) return req.bytes;
  if (!req.path) throw new IngestFailure("the original file is missing");
  try {
    // Synchronous: the worker handles one request at a time, and a small file is read in microseconds
    // where the thread-pool round trip of an asynchronous read cost more and ended the turn.
    return new Uint8Array(readFileSync(req.path));
  } catch {
    throw new IngestFailure("the original file is missing");
  }
}

/**
 * An exception raised while converting or chunking a document comes from the document (a converter
 * meeting input it does not expect), and parsing is deterministic: reported as a worker crash it was
 * retried twice more and then blamed on a crash that never happened. It fails the document at once; the
 * runtime's own words ("Array length must be a positive integer") tell a user nothing, so statusMsg says
 * what happened and the message with its stack goes to the log, since it is a converter bug to fix.
 * A worker that really dies (memory, signal) is still seen by the pool as a crash.
 */
export const CONVERTER_FAILED = "could not convert the document: the converter failed on its content (a fault on our side; the server log has the details)";

/** The runtime refused one allocation (a string or array past its size limits): the document is too big, not our code wrong. */
export const OUT_OF_MEMORY = "could not convert the document: its content expands into more text than one conversion can hold in memory";

export function asDocumentFailure(e: unknown): IngestFailure {
  if (e instanceof IngestFailure) return e;
  stderrLogger.error("conversion raised an unexpected error", { error: String((e as Error)?.stack ?? e).slice(0, 4000) });
  if (e instanceof RangeError && /^out of memory\b/i.test(e.message)) return new IngestFailure(OUT_OF_MEMORY);
  return new IngestFailure(CONVERTER_FAILED);
}

/** Markdown above this gets the full collections of handle(). */
const BIG_MARKDOWN_CHARS = 8 * 2 ** 20;

/**
 * Most characters of markdown or chunk text per message of a result sent in parts. The server's
 * IPC (Bun 1.3.5) holds a received message in a buffer it grows as the bytes come, and keeps the
 * memory: one 50 MB markdown and its 50 MB of chunks in one message grew the server by ~300 MB
 * that it kept after collection, the same data in 1 MB messages by ~110 MB (README, Performance).
 */
export const PART_CHARS = 2 ** 20;

function sendInParts(id: number, markdown: string, chunks: ParsedDocument["chunks"]) {
  for (let at = 0; at < markdown.length;) {
    let end = Math.min(at + PART_CHARS, markdown.length);
    // Never between the two halves of a surrogate pair: each part stays well-formed text.
    const last = markdown.charCodeAt(end - 1);
    if (end < markdown.length && last >= 0xd800 && last <= 0xdbff) end--;
    send({ type: "markdown", id, part: markdown.slice(at, end) });
    at = end;
  }
  for (let first = 0; first < chunks.length;) {
    let end = first + 1;
    let chars = chunks[first]!.text.length;
    while (end < chunks.length && chars + chunks[end]!.text.length <= PART_CHARS) chars += chunks[end++]!.text.length;
    send({ type: "chunks", id, chunks: chunks.slice(first, end) });
    first = end;
  }
}

async function handle(req: WorkerRequest): Promise<void> {
  try {
    const bytes = await bytesOf(req);
    if (req.type === "parse") {
      const onStage = req.progress ? (stage: WorkerStage, done?: number, total?: number) => send({ type: "stage", id: req.id, stage, done, total }) : undefined;
      const parsed = await parseDocument(bytes, req.contentType, req.chunk, { limits: req.limits, onStage })
        .catch((e) => { throw asDocumentFailure(e); });
      // Full collections after the parse and after each part of the vectors: left to itself the collector
      // let the garbage of the embedding of a 40 MB CSV's 10,000 chunks grow the worker from 340 MB to
      // 880 MB, and the copy of the result into its message took it past 1 GiB. With them it stays near
      // 570 MB, peaking at 810 MB for that copy. Each costs tens of ms; only big documents pay them.
      const big = req.enrich !== undefined && parsed.markdown.length > BIG_MARKDOWN_CHARS;
      if (big) Bun.gc(true);
      const enriched = req.enrich
        ? enrich(parsed, req.enrich, { onStage, onVectors: (data) => { send({ type: "vectors", id: req.id, data }); if (big) Bun.gc(true); } })
        : undefined;
      // and again before the result is copied into its message, for the garbage of the embedding
      if (big) Bun.gc(true);
      if (req.inParts && parsed.markdown.length > PART_CHARS) {
        const { markdown, chunks, ...rest } = parsed;
        sendInParts(req.id, markdown, chunks);
        send({ type: "done", id: req.id, result: { ...rest, enriched, inParts: true } });
      } else send({ type: "done", id: req.id, result: enriched ? { ...parsed, enriched } : parsed });
    } else {
      const { renderPdfPreviews } = await import("./preview.ts");
      const skipped = (page: number, reason: string) => send({ type: "preview-skipped", id: req.id, page, reason });
      for await (const p of renderPdfPreviews(bytes, req.pages, skipped)) send({ type: "preview", id: req.id, ...p });
      send({ type: "done", id: req.id });
    }
  } catch (e) {
    const failure = e instanceof IngestFailure;
    send({ type: "error", id: req.id, failure, message: failure ? (e as Error).message : String((e as Error)?.stack ?? e) });
  }
}

/** Runs until the parent goes away. */
export function runWorker(): Promise<number> {
  if (!process.send) {
    console.error("kbqa worker: must be started by the server (no IPC channel)");
    return Promise.resolve(2);
  }
  return new Promise((resolve) => {
    let chain = Promise.resolve();
    process.on("message", (m: WorkerEnvelope) => {
      for (const r of m.type === "batch" ? m.requests : [m]) chain = chain.then(() => handle(r));
    });
    process.on("disconnect", () => resolve(0));
    const parent = process.ppid;
    // The kernel kills a worker whose server died, even mid-parse (runtime/parent-death.ts);
    // the poll below covers a parent that died before the request was made, and other systems.
    dieWithParent();
    setInterval(() => {
      if (process.ppid !== parent) resolve(0);
    }, 1000).unref();
    warmUp();
    send({ type: "ready" });
  });
}

/**
 * Runs the built-in models once on a made-up document before the worker says it is ready: a
 * fresh process runs them unoptimised at first, and small documents are over before the JIT
 * catches up. Costs some tens of ms per spawn, outside any document's time limit.
 */
function warmUp() {
  const text = Array.from({ length: 150 }, (_, i) => `The inspector checks valve ${i} of station ${i % 7} before the morning shift starts.`).join("\n\n");
  enrich({ markdown: text, nbPages: 0, nbWords: 0, chunks: [{ text, pages: [] }] }, { lang: null, summary: true, tokens: true, embed: true });
}
