import type { Migration } from "../store/migration.ts";

export const migrations: Migration[] = [
  {
    id: "auth-001",
    sql: `
      CREATE TABLE orgs (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL);
      CREATE TABLE keys (
        kid TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), public_key TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL);
      CREATE INDEX keys_org ON keys(org_id);
      -- Only a SHA-256 of the token is kept: a leaked database does not leak usable tokens.
      CREATE TABLE access_tokens (
        token_hash TEXT PRIMARY KEY, org_id TEXT NOT NULL, user_id TEXT NOT NULL, email TEXT, name TEXT,
        issuer TEXT, scope TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, revoked_at INTEGER);
    `,
  },
  {
    // A token minted for another userId (a widget visitor) is confined to that user's sessions.
    // Tokens minted before this column existed stay as they were (they expire within --max-token-ttl).
    id: "auth-002",
    sql: `ALTER TABLE access_tokens ADD COLUMN confined INTEGER NOT NULL DEFAULT 0;`,
  },
];
