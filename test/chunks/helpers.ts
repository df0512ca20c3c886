import { Database } from "bun:sqlite";
import { join } from "node:path";
import { orderedId } from "../../src/store/ids.ts";
import type { Kbqa, Org } from "../helpers/server.ts";

export interface SeedChunk {
  pages?: number[];
  metadata?: Record<string, unknown>;
  /** null = stored text missing. */
  body?: string | null;
  hash?: string;
}

/**
 * Writes a READY document and its chunks straight into the test server's SQLite, the way the
 * ingestion commit does (one transaction). Filter and paging rules need exact pages, metadata
 * and hashes that a real ingestion would not produce on demand; the rows go to real storage
 * and everything is read back over HTTP. Ingestion itself is covered in ingest.test.ts.
 */
export function seedDocument(k: Kbqa, orgId: string, corpusId: string, chunks: SeedChunk[], documentId = crypto.randomUUID()): { documentId: string; chunkIds: string[] } {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"));
  db.exec("PRAGMA busy_timeout = 10000");
  const now = Date.now();
  const chunkIds = chunks.map(() => orderedId());
  db.transaction(() => {
    db.query(
      `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation)
       VALUES (?, ?, ?, ?, 'text/markdown', 'READY', ?, ?, ?, 1)`,
    ).run(documentId, orgId, corpusId, `${documentId}.md`, now, now, `seed/${documentId}`);
    chunks.forEach((c, i) => {
      const pages = c.pages ?? [];
      db.query(
        `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, metadata, body, created_at)
         VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(chunkIds[i]!, orgId, corpusId, documentId, i, JSON.stringify(pages), pages[0] ?? 0, c.hash ?? `h-${chunkIds[i]}`,
        JSON.stringify(c.metadata ?? { kind: "chunk" }), c.body === undefined ? `text ${i}` : c.body, now);
    });
  }).immediate();
  db.close();
  return { documentId, chunkIds };
}

export async function newCorpus(org: Org, name = "kb"): Promise<string> {
  const r = await org.api("POST", "/v1/corpus/", { name });
  if (r.status !== 200) throw new Error(`corpus create: ${r.status}`);
  return r.body.id;
}

/** Every chunk of a query, walking pageIndex. */
export async function walk(org: Org, path: string, pageSize = 100): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; ; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const r = await org.api("GET", `${path}${sep}pageSize=${pageSize}&pageIndex=${i}`);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.items);
    if (r.body.items.length < pageSize) return out;
  }
}

export const ids = (items: { id: string }[]) => items.map((c) => c.id);
