/**
 * Session search as the version before migration sessions-002 ran it (src/sessions/service.ts
 * `search` with src/sessions/match.ts), kept verbatim as the baseline of bench-sessions.ts: the
 * organization's sessions in order, narrowed in SQL by json_each of every row's metadata, and for
 * a metadata filter every remaining row parsed and tested in JavaScript. Returns the total and the
 * page's session ids (what the route then turns into views).
 */
import type { Database } from "bun:sqlite";

/** Takes a database back to the schema before sessions-002 (for the baseline, and to test the migration). */
export const UNDO_SESSIONS_002 = `
  DROP TRIGGER sessions_meta_insert; DROP TRIGGER sessions_meta_update; DROP TRIGGER session_corpora_order;
  DROP TABLE session_meta; DROP INDEX session_corpora_live; DROP INDEX sessions_owner;
  ALTER TABLE session_corpora DROP COLUMN created_at; ALTER TABLE session_corpora DROP COLUMN deleted_at;
  CREATE INDEX sessions_user ON sessions(org_id, user_id, created_at);
  DELETE FROM _migrations WHERE id = 'sessions-002';`;

export interface PreviousFilter {
  userId?: string;
  corpusId?: string;
  key?: string;
  value?: string;
  json?: string;
}

function contains(stored: unknown, fragment: unknown): boolean {
  if (Array.isArray(fragment)) {
    if (!Array.isArray(stored)) return false;
    return fragment.every((f) => stored.some((s) => contains(s, f)));
  }
  if (fragment !== null && typeof fragment === "object") {
    if (stored === null || typeof stored !== "object" || Array.isArray(stored)) return false;
    const s = stored as Record<string, unknown>;
    return Object.entries(fragment as Record<string, unknown>).every(([k, v]) => Object.hasOwn(s, k) && contains(s[k], v));
  }
  return stored === fragment;
}

function pairMatches(stored: Record<string, unknown>, key: string, value: string): boolean {
  if (!Object.hasOwn(stored, key)) return false;
  const v = stored[key];
  if (typeof v === "string") return v === value;
  if (v === null || typeof v === "number" || typeof v === "boolean") return JSON.stringify(v) === value;
  return false;
}

function prefilter(fragment: Record<string, unknown>): { sql: string[]; args: string[] } {
  const sql: string[] = [];
  const args: string[] = [];
  for (const [k, v] of Object.entries(fragment)) {
    if (typeof v === "string") {
      sql.push("EXISTS (SELECT 1 FROM json_each(s.metadata) j WHERE j.key = ? AND j.type = 'text' AND j.value = ?)");
      args.push(k, v);
    } else {
      sql.push("EXISTS (SELECT 1 FROM json_each(s.metadata) j WHERE j.key = ?)");
      args.push(k);
    }
  }
  return { sql, args };
}

const BOUND_LIVE = `NOT EXISTS (SELECT 1 FROM session_corpora bc JOIN corpora bk ON bk.id = bc.corpus_id
  WHERE bc.session_id = s.id AND bk.deleted_at IS NOT NULL)`;
const ORDER = "ORDER BY s.created_at DESC, s.id DESC";
const parse = (s: string) => {
  try {
    return JSON.parse(s) ?? {};
  } catch {
    return {};
  }
};

export function previousSearch(db: Database, orgId: string, f: PreviousFilter, p: { pageIndex: number; pageSize: number }, owner?: string): { total: number; ids: string[] } {
  const userId = f.userId || undefined;
  const corpusId = f.corpusId || undefined;
  const { key, value } = f;
  const jsonText = f.json?.trim() ? f.json : undefined;
  const where = ["s.org_id = ?", "s.deleted_at IS NULL"];
  const args: string[] = [orgId];
  if (db.query("SELECT 1 FROM corpus_drops WHERE org_id = ? LIMIT 1").get(orgId) != null) where.push(BOUND_LIVE);
  if (owner !== undefined) {
    where.push("s.user_id = ?");
    args.push(owner);
  }
  const narrow: string[] = [];
  const narrowArgs: string[] = [];
  let match: ((m: Record<string, unknown>) => boolean) | undefined;
  if (jsonText !== undefined) {
    const frag = JSON.parse(jsonText) as Record<string, unknown>;
    const pre = prefilter(frag);
    narrow.push(...pre.sql);
    narrowArgs.push(...pre.args);
    match = (m) => contains(m, frag);
  } else if (key !== undefined && value !== undefined) {
    narrow.push("EXISTS (SELECT 1 FROM json_each(s.metadata) j WHERE j.key = ?)");
    narrowArgs.push(key);
    match = (m) => pairMatches(m, key, value);
  }
  if (userId !== undefined) {
    where.push("s.user_id = ?");
    args.push(userId);
  }
  if (corpusId !== undefined) {
    where.push("EXISTS (SELECT 1 FROM session_corpora sc WHERE sc.session_id = s.id AND sc.corpus_id = ?)");
    args.push(corpusId);
  }
  const cond = where.join(" AND ");
  const offset = p.pageIndex * p.pageSize;
  if (match) {
    const all = db.query(`SELECT s.* FROM sessions s WHERE ${[cond, ...narrow].join(" AND ")} ${ORDER}`).all(...args, ...narrowArgs) as { id: string; metadata: string }[];
    const hits = all.filter((r) => match(parse(r.metadata)));
    return { total: hits.length, ids: hits.slice(offset, offset + p.pageSize).map((r) => r.id) };
  }
  const total = (db.query(`SELECT count(*) AS n FROM sessions s WHERE ${cond}`).get(...args) as { n: number }).n;
  const page = db.query(`SELECT s.* FROM sessions s WHERE ${cond} ${ORDER} LIMIT ? OFFSET ?`).all(...args, p.pageSize, offset) as { id: string }[];
  return { total, ids: page.map((r) => r.id) };
}
