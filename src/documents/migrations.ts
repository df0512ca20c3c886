import type { Migration } from "../store/migration.ts";

/**
 * Times are epoch milliseconds. JSON columns (metadata, tags, chunk) are TEXT.
 * `generation` grows at each content replacement, so work of an older generation
 * (a late ingestion, old vectors) can be recognised and discarded.
 */
export const migrations: Migration[] = [
  {
    id: "documents-001",
    sql: `
      CREATE TABLE documents (
        id TEXT PRIMARY KEY, org_id TEXT NOT NULL, corpus_id TEXT NOT NULL,
        filename TEXT NOT NULL, content_type TEXT NOT NULL,
        status TEXT NOT NULL, status_msg TEXT,
        size INTEGER, tokens INTEGER, nb_words INTEGER, nb_pages INTEGER NOT NULL DEFAULT 0,
        user_id TEXT, provider TEXT, lang TEXT,
        metadata TEXT NOT NULL DEFAULT '{}', tags TEXT, chunk TEXT,
        doc_create INTEGER, doc_update INTEGER,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted_at INTEGER,
        blob_key TEXT NOT NULL, content_hash TEXT, summary TEXT,
        stage TEXT, stage_done INTEGER, stage_total INTEGER,
        generation INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX documents_corpus ON documents(org_id, corpus_id, deleted_at, created_at, id);
      CREATE INDEX documents_hash ON documents(org_id, corpus_id, content_hash);
    `,
  },
];
