import type { Migration } from "../store/migration.ts";

/**
 * A session binds one or more corpora; the binding lives in its own table so "sessions bound to
 * corpus X" is an indexed lookup (session search, corpus-deletion cascade). `pos` keeps the
 * order the client sent. `legacy` holds the pre-change `model`/`system`/`temperature`/`thinking`
 * of imported old sessions (spec, Versioning); new sessions never write it.
 */
/**
 * Inserts the session_meta rows of the sessions rows `r` names: `new` in a trigger (from ""), or
 * an alias of sessions joined by `from` ("sessions s,"), filtered by `where`. The JSON functions
 * only ever see valid object text: anything else gets the single sub '!' row.
 */
function metaInsert(r: string, from: string, where: string): string {
  const ok = `(CASE WHEN json_valid(${r}.metadata) THEN json_type(${r}.metadata) = 'object' ELSE 0 END)`;
  const m = `(CASE WHEN ${ok} THEN ${r}.metadata ELSE '{}' END)`;
  const cols = `${r}.org_id, ${r}.id`;
  return `INSERT INTO session_meta (org_id, session_id, created_at, key, sub, val)
        SELECT ${cols}, ${r}.created_at, j.key, '', CASE j.type WHEN 'object' THEN '{}' WHEN 'array' THEN '[]' ELSE ${m} -> j.fullkey END
          FROM ${from} json_each(${m}) j WHERE ${where}
        UNION
        SELECT ${cols}, ${r}.created_at, j.key, CASE j.type WHEN 'object' THEN '.' || c.key ELSE '[]' END, ${m} -> c.fullkey
          FROM ${from} json_each(${m}) j, json_each(${m}, j.fullkey) c
          WHERE ${where} AND j.type IN ('object', 'array') AND c.type NOT IN ('object', 'array')
        UNION
        SELECT ${cols}, ${r}.created_at, '', '!', NULL ${from ? `FROM ${from.replace(/,\s*$/, "")}` : ""} WHERE ${where} AND NOT ${ok}`;
}

/** A binding's deleted_at: its session's, or 0 (never live) for a binding without a session row. */
const sessionDeletedAt = (id: string) =>
  `CASE WHEN EXISTS (SELECT 1 FROM sessions s WHERE s.id = ${id}) THEN (SELECT s.deleted_at FROM sessions s WHERE s.id = ${id}) ELSE 0 END`;

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
  {
    // Session searches were linear in the organization's sessions (README, Performance, "Session
    // searches at 100,000 sessions"): an owner's listing walked the organization index for want
    // of one on (user, live, order); a corpus filter probed every session's bindings; a metadata
    // filter parsed every session's metadata. Each filter now has an index in the listing's order
    // (created_at, id) over live sessions only, so a page and its total are read from one range,
    // or from the smallest range with the other filters probed (sessions/search.ts):
    // - sessions_owner replaces sessions_user (same prefix);
    // - session_corpora carries its session's created_at and deleted_at, kept by triggers
    //   whatever writes the binding or marks the session;
    // - session_meta holds, for each live session whose metadata is a JSON object, one row per
    //   top-level key (sub ''), per scalar child of a top-level object (sub '.' || child key) and
    //   per distinct scalar element of a top-level array (sub '[]'); val is the value's JSON text
    //   as stored ('{}' and '[]' for an object or array), which is JSON.stringify's (toJson)
    //   for every row the service writes. Metadata that SQLite cannot read (nested past its 1000
    //   levels, stored before the write limit) or that is not an object gets a single row with
    //   sub '!': its organization is searched as before (sessions/search.ts).
    id: "sessions-002",
    sql: `
      DROP INDEX sessions_user;
      CREATE INDEX sessions_owner ON sessions(org_id, user_id, deleted_at, created_at, id);
      ALTER TABLE session_corpora ADD COLUMN created_at INTEGER;
      ALTER TABLE session_corpora ADD COLUMN deleted_at INTEGER;
      UPDATE session_corpora SET
        created_at = (SELECT s.created_at FROM sessions s WHERE s.id = session_corpora.session_id),
        deleted_at = ${sessionDeletedAt("session_corpora.session_id")};
      CREATE INDEX session_corpora_live ON session_corpora(org_id, corpus_id, deleted_at, created_at, session_id);
      CREATE TRIGGER session_corpora_order AFTER INSERT ON session_corpora BEGIN
        UPDATE session_corpora SET
          created_at = (SELECT s.created_at FROM sessions s WHERE s.id = new.session_id),
          deleted_at = ${sessionDeletedAt("new.session_id")}
        WHERE rowid = new.rowid;
      END;
      CREATE TABLE session_meta (
        org_id TEXT NOT NULL, session_id TEXT NOT NULL, key TEXT NOT NULL, sub TEXT NOT NULL, val TEXT,
        created_at INTEGER NOT NULL);
      CREATE INDEX session_meta_find ON session_meta(org_id, key, sub, val, created_at, session_id);
      CREATE INDEX session_meta_session ON session_meta(session_id);
      ${metaInsert("s", "sessions s,", "s.deleted_at IS NULL")};
      CREATE TRIGGER sessions_meta_insert AFTER INSERT ON sessions WHEN new.deleted_at IS NULL BEGIN
        ${metaInsert("new", "", "1")};
      END;
      CREATE TRIGGER sessions_meta_update AFTER UPDATE OF metadata, deleted_at ON sessions BEGIN
        DELETE FROM session_meta WHERE session_id = old.id;
        ${metaInsert("new", "", "new.deleted_at IS NULL")};
        UPDATE session_corpora SET deleted_at = new.deleted_at WHERE session_id = new.id AND deleted_at IS NOT new.deleted_at;
      END;
    `,
  },
];
