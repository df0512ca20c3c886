import type { Migration } from "../store/migration.ts";

export const migrations: Migration[] = [
  {
    id: "corpus-001",
    sql: `
      CREATE TABLE corpora (
        id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT,
        metadata TEXT NOT NULL DEFAULT '{}', user_id TEXT,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted_at INTEGER);
      CREATE INDEX corpora_org ON corpora(org_id, deleted_at, created_at, id);
    `,
  },
  {
    // Deleted corpora whose documents and sessions are still to mark deleted (corpus/drops.ts),
    // in the background in small transactions instead of inside the corpus deletion. A data
    // directory that has this migration is refused by older builds (store/db.ts): they would
    // show the unmarked documents of a deleted corpus as live. sessions_after: the corpus'
    // bindings up to this session_corpora rowid belong to marked sessions (sessions/service.ts).
    id: "corpus-002",
    sql: `
      CREATE TABLE corpus_drops (
        id INTEGER PRIMARY KEY AUTOINCREMENT, org_id TEXT NOT NULL, corpus_id TEXT NOT NULL, created_at INTEGER NOT NULL,
        sessions_after INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX corpus_drops_org ON corpus_drops(org_id, corpus_id);
    `,
  },
];
