import type { Migration } from "../store/migration.ts";

/**
 * Custom agents only; the core agents live in code (agents/core.ts). Nullable columns hold
 * overrides (NULL follows the platform default). Names are unique among an organization's live
 * agents; the partial index backs the service's check against concurrent writers.
 */
export const migrations: Migration[] = [
  {
    id: "agents-001",
    sql: `
      CREATE TABLE agents (
        id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT,
        top_k INTEGER NOT NULL, rerank INTEGER NOT NULL, rerank_top_k INTEGER, rerank_model TEXT,
        context TEXT, behaviour TEXT, spirit TEXT,
        use_history INTEGER NOT NULL, history_size INTEGER, thinking_mode TEXT NOT NULL,
        temperature REAL, base_model TEXT,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted_at INTEGER);
      CREATE UNIQUE INDEX agents_live_name ON agents(org_id, name) WHERE deleted_at IS NULL;
      CREATE INDEX agents_org ON agents(org_id, deleted_at, created_at, id);
    `,
  },
];
