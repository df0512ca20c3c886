import type { Migration } from "../store/migration.ts";

/**
 * A session binds one or more corpora; the binding lives in its own table so "sessions bound to
 * corpus X" is an indexed lookup (session search, corpus-deletion cascade). `pos` keeps the
 * order the client sent. `legacy` holds the pre-change `model`/`system`/`temperature`/`thinking`
 * of imported old sessions (spec, Versioning); new sessions never write it.
 */
export const migrations: Migration[] = [
  {
    id: "sessions-001",
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY, org_id TEXT NOT NULL, user_id TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}', legacy TEXT,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted_at INTEGER);
      CREATE INDEX sessions_org ON sessions(org_id, deleted_at, created_at, id);
      CREATE INDEX sessions_user ON sessions(org_id, user_id, created_at);
      CREATE TABLE session_corpora (
        session_id TEXT NOT NULL, org_id TEXT NOT NULL, corpus_id TEXT NOT NULL, pos INTEGER NOT NULL,
        PRIMARY KEY (session_id, corpus_id));
      CREATE INDEX session_corpora_corpus ON session_corpora(org_id, corpus_id);
    `,
  },
];
