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
];
