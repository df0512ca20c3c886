// Builds an evaluation index in-process with the real ingestion functions: pdf-lib PDFs →
// convert → elements → chunker → embedder → LanceDB, plus the SQLite rows retrieval reads.
import { PDFDocument, StandardFonts } from "pdf-lib";
import { openDb, type Db } from "../../src/store/db.ts";
import { orderedId } from "../../src/store/ids.ts";
import { convert } from "../../src/ingest/convert/index.ts";
import { markdownToElements } from "../../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig } from "../../src/ingest/chunker/index.ts";
import { openLanceIndex, type LanceIndex } from "../../src/store/lance.ts";
import type { Embedder } from "../../src/models/types.ts";
import type { EvalDoc } from "./corpus.ts";
import { join } from "node:path";

export async function makePdf(pages: string[][]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([595, 842]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 18, size: 11, font }));
  }
  return pdf.save();
}

export interface Loaded { db: Db; vectors: LanceIndex; docIds: Map<string, string>; chunks: number }

/** One chunk per page, so a hit names a page (the platform default would merge these short pages). */
const CHUNKING = { multipage_sections: false, combine_text_under_n_chars: 0 };

export async function loadCorpus(dir: string, orgId: string, corpusId: string, docs: EvalDoc[], embedder: Embedder): Promise<Loaded> {
  const db = openDb(dir);
  const vectors = await openLanceIndex(join(dir, "lance"), embedder.id, embedder.dims);
  const docIds = new Map<string, string>();
  let chunks = 0;
  const config = parseChunkConfig(CHUNKING);
  for (const d of docs) {
    const docId = crypto.randomUUID();
    docIds.set(d.name, docId);
    const { markdown, nbPages } = await convert(await makePdf(d.pages), "application/pdf");
    const pieces = chunkElements(markdownToElements(markdown), config);
    db.query(
      `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, nb_pages, created_at, updated_at, blob_key, generation)
       VALUES (?, ?, ?, ?, 'application/pdf', 'READY', ?, 0, 0, 'eval', 1)`,
    ).run(docId, orgId, corpusId, d.name, nbPages);
    const vecs = await embedder.embed(pieces.map((p) => p.text), "passage");
    const records = pieces.map((p, i) => {
      const id = orderedId();
      db.query(
        `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, metadata, body, created_at)
         VALUES (?, ?, ?, ?, 1, ?, ?, ?, '', '{"kind":"chunk"}', ?, 0)`,
      ).run(id, orgId, corpusId, docId, i, JSON.stringify(p.pages), p.pages[0] ?? 0, p.text);
      return { chunkId: id, orgId, corpusId, documentId: docId, generation: 1, text: p.text, vector: vecs[i]! };
    });
    await vectors.add(records);
    chunks += records.length;
  }
  await vectors.optimize();
  return { db, vectors, docIds, chunks };
}
