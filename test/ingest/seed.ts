/**
 * Drives the real ingestion of a running server without the documents routes: inserts the
 * document row, the original blob and the job exactly as commit does, and reads back state.
 */
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { originalKey } from "../../src/store/blob-keys.ts";
import { newId } from "../../src/store/ids.ts";
import { openLanceIndex } from "../../src/store/lance.ts";

export interface Seed {
  orgId: string;
  corpusId: string;
  bytes: Uint8Array;
  contentType: string;
  chunk?: unknown;
  lang?: string;
  userId?: string;
}

export async function seedDoc(db: Db, dataDir: string, s: Seed): Promise<string> {
  const id = newId();
  const key = originalKey(s.orgId, id);
  const blobs = new FsBlobStore(join(dataDir, "blobs"));
  await blobs.put(key, s.bytes);
  const now = Date.now();
  db.transaction(() => {
    db.query(
      `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, lang, chunk, created_at, updated_at, blob_key, generation)
       VALUES (?, ?, ?, ?, ?, 'PROCESSING', ?, ?, ?, ?, ?, ?, ?, 1)`,
    ).run(id, s.orgId, s.corpusId, "f", s.contentType, s.bytes.byteLength, s.userId ?? "user-1", s.lang ?? null,
      s.chunk === undefined ? null : JSON.stringify(s.chunk), now, now, key);
    db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(s.orgId, id, now);
  })();
  return id;
}

export const openTestDb = (dataDir: string) => openDb(dataDir);

export interface DocState {
  status: string;
  status_msg: string | null;
  stage: string | null;
  tokens: number | null;
  nb_words: number | null;
  nb_pages: number;
  lang: string | null;
  summary: string | null;
  generation: number;
}

export const docState = (db: Db, id: string) =>
  db.query<DocState, [string]>("SELECT status, status_msg, stage, tokens, nb_words, nb_pages, lang, summary, generation FROM documents WHERE id = ?").get(id)!;

export interface ChunkState { id: string; seq: number; pages: string; first_page: number; hash: string; metadata: string; body: string; generation: number }
export const chunkRows = (db: Db, id: string) =>
  db.query<ChunkState, [string]>("SELECT id, seq, pages, first_page, hash, metadata, body, generation FROM chunks WHERE document_id = ? ORDER BY first_page, id").all(id);

/** A fresh connection each time: a LanceDB table handle does not see other processes' later commits. */
export async function vectorCount(dataDir: string, orgId: string, docId: string, generation?: number): Promise<number> {
  const ix = await openLanceIndex(join(dataDir, "lance"), "builtin-hash-embed", 384);
  try {
    return await ix.countDocument(orgId, docId, generation);
  } finally {
    await ix.close();
  }
}

export const settled = (db: Db, ids: string[]) => ids.every((id) => ["READY", "FAILED"].includes(docState(db, id).status));
