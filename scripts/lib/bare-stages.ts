// The bare stages of ingestion, for scripts/bench-ingest.ts: each stage called directly, one
// after the other, in one process, on the inputs the pipeline gets. Run as a child process of the
// benchmark (`bun scripts/lib/bare-stages.ts <dir> <docs>`), so the stages are timed right before
// the pipeline run they are compared with (this VM's speed drifts by tens of percent within
// minutes) without running inside the process that hosts the server under test.
//
// Protocol (Bun IPC, advanced serialization), one request at a time:
//   parent → child  {type: "pass"}              one pass over the small markdown files
//                   {type: "pdf", bytes}        the PDF's stages, once
//   child → parent  {type: "ready"}             once, after setup
//                   {type: "result", result}    StageTimes or PdfStageTimes
//                   {type: "error", message}
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { Database } from "bun:sqlite";
import { convert } from "../../src/ingest/convert/index.ts";
import { markdownToElements } from "../../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig } from "../../src/ingest/chunker/index.ts";
import { COMMIT_ROWS, EMBED_BATCH } from "../../src/ingest/finish-batch.ts";
import { SUMMARY_INPUT_CHARS } from "../../src/ingest/enrich.ts";
import { md5 } from "../../src/ingest/ingest-job.ts";
import { claimMany, commitReadyMany, type JobRow } from "../../src/ingest/job-store.ts";
import { countWords } from "../../src/ingest/parsed.ts";
import { withoutPageMarkers } from "../../src/ingest/pipeline.ts";
import { createBuiltinEmbedder } from "../../src/models/builtin-embed.ts";
import { createBuiltinSummariser } from "../../src/models/builtin-summary.ts";
import { approxTokenCount } from "../../src/models/builtin-tokens.ts";
import { detectLang } from "../../src/models/lang.ts";
import { originalKey } from "../../src/store/blob-keys.ts";
import { openDb, type Db } from "../../src/store/db.ts";
import { newId, orderedId } from "../../src/store/ids.ts";
import { chunkSchema, toArrowTable } from "../../src/store/lance-rows.ts";

const WORDS = "the service converts documents into chunks and embeds every chunk for retrieval by question".split(" ");

/** The i-th small file of the benchmark (the pipeline ingests exactly these bytes). */
export const markdown = (i: number) =>
  `# Note ${i}\n\n${WORDS.join(" ")} number ${i}.\n\n## Details\n\n- item one of ${i}\n- item two\n\n${WORDS.slice(3).join(" ")}.\n`;

/** Milliseconds per stage of one pass over all the files. */
export interface StageTimes {
  extract: number;
  summary: number;
  embed: number;
  counters: number;
  /** Raw LanceDB add of every row + the service's own SQLite READY commit of the documents. */
  store: number;
  /** Raw LanceDB add + one plain insert into a table with a primary key only. */
  storeMinimal: number;
  /** CPU of the five stages (store as the service stores). */
  cpu: number;
  chunks: number;
}

/** Milliseconds per stage of one PDF. */
export interface PdfStageTimes {
  convert: number;
  chunk: number;
  summary: number;
  embed: number;
  chunks: number;
}

/** The PDF's stages as the pipeline runs them: conversion, chunking, summary of the text, embedding of the summary and the chunks. */
export async function pdfStages(bytes: Uint8Array): Promise<PdfStageTimes> {
  const embedder = createBuiltinEmbedder();
  const summariser = createBuiltinSummariser();
  let t = performance.now();
  const conv = await convert(bytes, "application/pdf");
  const convertMs = performance.now() - t;
  t = performance.now();
  const chunks = chunkElements(markdownToElements(conv.markdown), parseChunkConfig(null));
  const chunk = performance.now() - t;
  t = performance.now();
  const summary = (await summariser.summarise(withoutPageMarkers(conv.markdown).slice(0, SUMMARY_INPUT_CHARS), "en")).text;
  const summaryMs = performance.now() - t;
  t = performance.now();
  const texts = [summary, ...chunks.map((c) => c.text)];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) await embedder.embed(texts.slice(i, i + EMBED_BATCH), "passage");
  return { convert: convertMs, chunk, summary: summaryMs, embed: performance.now() - t, chunks: texts.length };
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** `n` documents with a claimed job each, as the READY commit expects them (untimed setup). */
function claimedJobs(db: Db, org: string, n: number): JobRow[] {
  const now = Date.now();
  const jobs = db.transaction(() => Array.from({ length: n }, () => {
    const id = newId();
    db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, created_at, updated_at, blob_key, generation)
              VALUES (?, ?, ?, 'f', 'text/markdown', 'PROCESSING', 100, ?, ?, ?, 1)`).run(id, org, org, now, now, originalKey(org, id));
    const jobId = Number(db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now).lastInsertRowid);
    return { id: jobId, org_id: org, document_id: id, generation: 1, state: "queued", attempts: 0 } satisfies JobRow;
  }))();
  const claimed = claimMany(db, jobs, now);
  if (claimed.length !== n) throw new Error("bare store setup: jobs not claimed");
  return claimed;
}

/** Sets up the store stage's tables under `dir` (indexed as the server's are) and returns a pass runner. */
export async function mdStages(dir: string, docs: number): Promise<() => Promise<StageTimes>> {
  const files = Array.from({ length: docs }, (_, i) => new TextEncoder().encode(markdown(i)));
  const embedder = createBuiltinEmbedder();
  const summariser = createBuiltinSummariser();
  const org = newId();
  const conn = await lancedb.connect(join(dir, "bare-lance"));
  const table = await conn.createEmptyTable("bare", chunkSchema(384));
  await table.add(toArrowTable([{ chunkId: newId(), orgId: org, corpusId: org, documentId: newId(), generation: 1, text: "warm up row", vector: new Float32Array(384).fill(0.05) }], 384, "bare"));
  await table.createIndex("text", { config: lancedb.Index.fts() });
  for (const c of ["orgId", "corpusId"]) await table.createIndex(c, { config: lancedb.Index.bitmap() });
  for (const c of ["documentId", "chunkId"]) await table.createIndex(c, { config: lancedb.Index.btree() });
  const plainDb = new Database(join(dir, "bare-plain.sqlite"));
  plainDb.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE c (id TEXT PRIMARY KEY, document_id TEXT NOT NULL, body TEXT NOT NULL)");
  const plainInsert = plainDb.prepare("INSERT INTO c (id, document_id, body) VALUES (?, ?, ?)");
  const serviceDb = openDb(join(dir, "bare-service"));

  return async () => {
    const c0 = process.cpuUsage();
    let t = performance.now();
    const parsed: { md: string; chunks: ReturnType<typeof chunkElements> }[] = [];
    for (const b of files) {
      const md = (await convert(b, "text/markdown")).markdown;
      parsed.push({ md, chunks: chunkElements(markdownToElements(md), parseChunkConfig(null)) });
    }
    const extract = performance.now() - t;
    t = performance.now();
    const sums: string[] = [];
    for (const p of parsed) sums.push((await summariser.summarise(withoutPageMarkers(p.md), "en")).text);
    const summary = performance.now() - t;
    t = performance.now();
    const vectors: Float32Array[][] = [];
    for (let i = 0; i < parsed.length; i++) vectors.push(await embedder.embed([sums[i]!, ...parsed[i]!.chunks.map((c) => c.text)], "passage"));
    const embed = performance.now() - t;
    // Counters and hashes every ingested document gets: language, tokens, words, a hash per chunk.
    t = performance.now();
    const counted = parsed.map((p, i) => {
      const plain = withoutPageMarkers(p.md);
      return { lang: detectLang(plain), tokens: approxTokenCount(plain), words: countWords(plain), hashes: [sums[i]!, ...p.chunks.map((c) => c.text)].map(md5) };
    });
    const counters = performance.now() - t;
    const stagesCpu = cpuMs(process.cpuUsage(c0));

    // Storing, on tables already holding the earlier passes' rows: one raw LanceDB add of every
    // row (what the pipeline's batches add up to), then the chunk rows into SQLite two ways: one
    // plain transaction into a table with a primary key only (the minimal store), and the
    // service's own READY commit (job-store.ts commitReadyMany, in the slices the service uses)
    // into a database with the service's schema: chunk rows with their indexes and metadata
    // search index, the converted markdown, READY with the counters, the usage event, the job's
    // end. The document and job rows it updates are written beforehand, untimed.
    const texts = parsed.flatMap((p, i) => [sums[i]!, ...p.chunks.map((c) => c.text)]);
    const records = vectors.flat().map((vector, i) => ({ chunkId: newId(), orgId: org, corpusId: org, documentId: newId(), generation: 1, text: texts[i]!, vector }));
    const items = claimedJobs(serviceDb, org, parsed.length).map((job, i) => {
      const p = parsed[i]!;
      const c = counted[i]!;
      const chunks = [sums[i]!, ...p.chunks.map((ch) => ch.text)].map((text, k) => (
        { id: orderedId(), seq: k, pages: [] as number[], hash: c.hashes[k]!, kind: k === 0 ? "summary" as const : "chunk" as const, text }));
      return { job, fields: { chunks, corpusId: org, userId: "bench", tokens: c.tokens, nbWords: c.words, nbPages: 0, lang: c.lang, summary: sums[i]!, markdown: p.md } };
    });
    let u = process.cpuUsage();
    t = performance.now();
    await table.add(toArrowTable(records, 384, "bare"));
    const storeLance = performance.now() - t;
    const lanceCpu = cpuMs(process.cpuUsage(u));
    t = performance.now();
    plainDb.transaction(() => {
      for (const r of records) plainInsert.run(r.chunkId, r.documentId, r.text);
    })();
    const storePlain = performance.now() - t;
    u = process.cpuUsage();
    t = performance.now();
    for (let first = 0; first < items.length;) {
      let end = first + 1;
      let rows = items[first]!.fields.chunks.length;
      while (end < items.length && rows + items[end]!.fields.chunks.length <= COMMIT_ROWS) rows += items[end++]!.fields.chunks.length;
      if (commitReadyMany(serviceDb, items.slice(first, end), Date.now()).includes(false)) throw new Error("a bare commit was refused");
      first = end;
    }
    const storeService = performance.now() - t;
    return {
      extract, summary, embed, counters, store: storeLance + storeService, storeMinimal: storeLance + storePlain,
      cpu: stagesCpu + lanceCpu + cpuMs(process.cpuUsage(u)), chunks: records.length,
    };
  };
}

if (import.meta.main) {
  const [dir, docs] = process.argv.slice(2);
  const pass = await mdStages(dir!, Number(docs));
  process.on("message", async (m: { type: string; bytes?: Uint8Array }) => {
    try {
      process.send!({ type: "result", result: m.type === "pdf" ? await pdfStages(m.bytes!) : await pass() });
    } catch (e) {
      process.send!({ type: "error", message: String((e as Error)?.stack ?? e) });
    }
  });
  process.on("disconnect", () => process.exit(0));
  process.send!({ type: "ready" });
}
