import type { Migration } from "../store/migration.ts";

/**
 * One row per countable event, written in the same transaction as the change it counts
 * (see usage/record.ts). Reports sum these rows; nothing is recomputed from mutable tables.
 */
export const migrations: Migration[] = [
  {
    id: "usage-001",
    sql: `
      CREATE TABLE usage_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, org_id TEXT NOT NULL, at INTEGER NOT NULL,
        metric TEXT NOT NULL, op TEXT NOT NULL, amount INTEGER NOT NULL,
        user_id TEXT, corpus_id TEXT, source TEXT);
      CREATE INDEX usage_org_at ON usage_events(org_id, metric, at);
    `,
  },
];
