import type { Migration } from "../store/migration.ts";

/**
 * Post ids come from orderedId(), so "created_at, then id" puts a question before its answer
 * even when both share a millisecond. A citation keeps the chunk's generation: when the
 * document's content is replaced the generation moves on and the citation stops being live.
 * Token counts stay on the SYSTEM post for audits; usage reports read usage_events.
 */
export const migrations: Migration[] = [
  {
    id: "posts-001",
    sql: `
      CREATE TABLE posts (
        id TEXT PRIMARY KEY, org_id TEXT NOT NULL, session_id TEXT NOT NULL, user_id TEXT,
        owner TEXT NOT NULL, body TEXT NOT NULL, lang TEXT NOT NULL, agent_id TEXT NOT NULL,
        attachment INTEGER NOT NULL DEFAULT 0, model TEXT, prompt_tokens INTEGER, completion_tokens INTEGER,
        usage_corpus_id TEXT, created_at INTEGER NOT NULL, deleted_at INTEGER);
      CREATE INDEX posts_session ON posts(org_id, session_id, deleted_at, created_at, id);
      CREATE TABLE post_citations (
        post_id TEXT NOT NULL, org_id TEXT NOT NULL, chunk_id TEXT NOT NULL, document_id TEXT NOT NULL,
        generation INTEGER NOT NULL, pages TEXT NOT NULL DEFAULT '[]', ref INTEGER NOT NULL,
        PRIMARY KEY (post_id, chunk_id));
      CREATE INDEX post_citations_org ON post_citations(org_id, post_id);
    `,
  },
];
