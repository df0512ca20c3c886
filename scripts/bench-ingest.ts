// Ingestion throughput through the real server (scheduler, worker processes, summary, embeddings,
// LanceDB, SQLite commit) on a generated 200-page text PDF and 500 small markdown files.
// Baseline measured in the same run: the bare stages called directly in this process —
// convert() alone, elements+chunking alone, the embedder alone on the same chunk texts.
// Documents are handed to the server exactly as commit does (document row + blob + job row).
// Run: bun scripts/bench-ingest.ts [--workers N]
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { loadConfig } from "../src/config.ts";
import { startServer } from "../src/server.ts";
import { convert } from "../src/ingest/convert/index.ts";
import { markdownToElements } from "../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig } from "../src/ingest/chunker/index.ts";
import { createBuiltinEmbedder } from "../src/models/builtin-embed.ts";
import { openDb, type Db } from "../src/store/db.ts";
import { FsBlobStore } from "../src/store/fs-blob.ts";
import { originalKey } from "../src/store/blob-keys.ts";
import { newId } from "../src/store/ids.ts";

const workers = process.argv.includes("--workers") ? process.argv[process.argv.indexOf("--workers") + 1]! : "2";
const WORDS = "the service converts documents into chunks and embeds every chunk for retrieval by question".split(" ");

async function pdf200(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (let p = 1; p <= 200; p++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Section ${p}`, { x: 50, y: 790, size: 20, font: bold });
    for (let l = 0; l < 45; l++) {
      const line = Array.from({ length: 12 }, (_, i) => WORDS[(p * 7 + l * 3 + i) % WORDS.length]).join(" ");
      page.drawText(`${line} ${p}.${l}.`, { x: 50, y: 760 - l * 15, size: 10, font });
    }
  }
  return doc.save();
}

const markdown = (i: number) =>
  `# Note ${i}\n\n${WORDS.join(" ")} number ${i}.\n\n## Details\n\n- item one of ${i}\n- item two\n\n${WORDS.slice(3).join(" ")}.\n`;

async function seed(db: Db, blobs: FsBlobStore, org: string, corpus: string, bytes: Uint8Array, contentType: string): Promise<string> {
  const id = newId();
  await blobs.put(originalKey(org, id), bytes);
  const now = Date.now();
  db.transaction(() => {
    db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, created_at, updated_at, blob_key, generation)
              VALUES (?, ?, ?, 'f', ?, 'PROCESSING', ?, ?, ?, ?, 1)`).run(id, org, corpus, contentType, bytes.byteLength, now, now, originalKey(org, id));
    db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now);
  })();
  return id;
}

async function untilSettled(db: Db, ids: string[]): Promise<number> {
  const t0 = performance.now();
  const marks = ids.map(() => "?").join(",");
  const q = db.query<{ n: number }, string[]>(`SELECT count(*) AS n FROM documents WHERE id IN (${marks}) AND status IN ('READY','FAILED')`);
  while (q.get(...ids)!.n < ids.length) await Bun.sleep(20);
  return performance.now() - t0;
}

const chunksOf = (db: Db, ids: string[]) =>
  db.query<{ n: number }, string[]>(`SELECT count(*) AS n FROM chunks WHERE document_id IN (${ids.map(() => "?").join(",")})`).get(...ids)!.n;

const dir = mkdtempSync(join(tmpdir(), "kbqa-bench-ingest-"));
mkdirSync(join(dir, "models"));
try {
  const pdf = await pdf200();
  const mds = Array.from({ length: 500 }, (_, i) => new TextEncoder().encode(markdown(i)));

  // Bare stages, in this process.
  let t = performance.now();
  const conv = await convert(pdf, "application/pdf");
  const convertMs = performance.now() - t;
  t = performance.now();
  const pdfChunks = chunkElements(markdownToElements(conv.markdown), parseChunkConfig(null));
  const chunkMs = performance.now() - t;
  const embedder = createBuiltinEmbedder();
  t = performance.now();
  for (let i = 0; i < pdfChunks.length; i += 32) await embedder.embed(pdfChunks.slice(i, i + 32).map((c) => c.text), "passage");
  const embedMs = performance.now() - t;
  t = performance.now();
  let mdChunks = 0;
  for (const b of mds) {
    const c = chunkElements(markdownToElements((await convert(b, "text/markdown")).markdown), parseChunkConfig(null));
    await embedder.embed(c.map((x) => x.text), "passage");
    mdChunks += c.length;
  }
  const mdBareMs = performance.now() - t;

  // Through the server.
  const config = loadConfig({ data: join(dir, "data"), models: join(dir, "models"), port: "0", workers });
  const server = await startServer(config);
  const db = openDb(config.dataDir);
  const blobs = new FsBlobStore(join(config.dataDir, "blobs"));
  const org = newId();
  // Warm-up: spawn the worker processes (a one-off cost at server start, not per document).
  await untilSettled(db, await Promise.all(Array.from({ length: Number(workers) }, () => seed(db, blobs, org, newId(), mds[0]!, "text/markdown"))));

  const pdfId = await seed(db, blobs, org, newId(), pdf, "application/pdf");
  const pdfReadyMs = await untilSettled(db, [pdfId]);
  const pdfRow = db.query<{ status: string; nb_pages: number }, [string]>("SELECT status, nb_pages FROM documents WHERE id = ?").get(pdfId)!;
  const pdfChunkRows = chunksOf(db, [pdfId]);

  const corpus = newId();
  const t0 = performance.now();
  const mdIds: string[] = [];
  for (const b of mds) mdIds.push(await seed(db, blobs, org, corpus, b, "text/markdown"));
  await untilSettled(db, mdIds);
  const mdMs = performance.now() - t0;
  const mdChunkRows = chunksOf(db, mdIds);
  const mdReady = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM documents WHERE corpus_id = '${corpus}' AND status = 'READY'`).get()!.n;
  await server.stop();
  db.close();

  const bare = convertMs + embedMs;
  const s = (ms: number) => (ms / 1000).toFixed(2) + " s";
  console.log(`workers: ${workers}`);
  console.log(`200-page PDF: ${pdfRow.status}, ${pdfRow.nb_pages} pages, ${pdfChunkRows} chunk rows (incl. summary); READY in ${s(pdfReadyMs)}`);
  console.log(`  ${(200 / (pdfReadyMs / 1000)).toFixed(1)} pages/s, ${(pdfChunkRows / (pdfReadyMs / 1000)).toFixed(1)} chunks/s`);
  console.log(`  bare stages: convert ${s(convertMs)}, chunking ${s(chunkMs)}, embedding ${s(embedMs)} (${pdfChunks.length} chunks)`);
  console.log(`  overhead: READY / (convert + embed) = ${(pdfReadyMs / bare).toFixed(2)}x; / (convert + chunk + embed) = ${(pdfReadyMs / (bare + chunkMs)).toFixed(2)}x`);
  console.log(`500 markdown files: ${mdReady}/500 READY in ${s(mdMs)}: ${(500 / (mdMs / 1000)).toFixed(1)} docs/s, ${(mdChunkRows / (mdMs / 1000)).toFixed(1)} chunks/s`);
  console.log(`  bare stages (convert+chunk+embed, one process, sequential): ${s(mdBareMs)} for ${mdChunks} chunks; ratio ${(mdMs / mdBareMs).toFixed(2)}x`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
