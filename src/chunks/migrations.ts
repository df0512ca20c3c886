import type { Migration } from "../store/migration.ts";

/**
 * Chunk ids come from store/ids.ts orderedId(), so "first page, then id" is reading order.
 * first_page is 0 for an empty span, which sorts it first in its document as the spec says.
 */
export const migrations: Migration[] = [
  {
    id: "chunks-001",
    sql: `
      CREATE TABLE chunks (
        id TEXT PRIMARY KEY, org_id TEXT NOT NULL, corpus_id TEXT NOT NULL, document_id TEXT NOT NULL,
        generation INTEGER NOT NULL, seq INTEGER NOT NULL,
        pages TEXT NOT NULL DEFAULT '[]', first_page INTEGER NOT NULL DEFAULT 0,
        hash TEXT NOT NULL, metadata TEXT NOT NULL DEFAULT '{}', body TEXT,
        created_at INTEGER NOT NULL, deleted_at INTEGER);
      CREATE INDEX chunks_order ON chunks(org_id, deleted_at, document_id, first_page, id);
      CREATE INDEX chunks_doc ON chunks(org_id, document_id, generation);
      CREATE INDEX chunks_hash ON chunks(org_id, hash);
    `,
  },
];
