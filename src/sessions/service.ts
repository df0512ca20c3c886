import type { Db } from "../store/db.ts";
import { fromJson, toJson } from "../store/db.ts";
import { newId } from "../store/ids.ts";
import { iso, type Clock } from "../store/time.ts";
import { badRequest, forbidden, notFound } from "../http/errors.ts";
import { offsetOf, requireDepth, requireFinite, type Paging } from "../http/paging.ts";
import { recordUsage } from "../usage/record.ts";
import { corpusService } from "../corpus/service.ts";
import { dropsPending, type CorpusDrop } from "../corpus/drops.ts";
import { contains, pairMatches, prefilter } from "./match.ts";
import { fragmentPlan, indexedCandidates, indexedSearch, pairPlan, rowsByIdSql, unindexed, type IndexedFilter, type MetaPlan } from "./search.ts";

export interface SessionView {
  id: string;
  orgId: string;
  userId: string;
  corpusIds: string[];
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  /** Only on sessions created before the spec's Versioning change (imported rows). */
  model?: unknown;
  system?: unknown;
  temperature?: unknown;
  thinking?: unknown;
}

/** What an imported old session's `legacy` column may show (spec, Versioning). */
const LEGACY_KEYS = ["model", "system", "temperature", "thinking"] as const;

/**
 * Filters of GET /v1/session/q. Empty userId, corpusId and json count as absent; key and value
 * count as absent only when not sent, since {"tag": ""} is metadata a client can search for.
 */
export interface SessionFilter {
  userId?: string;
  corpusId?: string;
  key?: string;
  value?: string;
  json?: string;
}

/** The filters a search actually applied (echoed in the response). */
export interface AppliedFilters {
  userId?: string;
  corpusId?: string;
  key?: string;
  value?: string;
  json?: Record<string, unknown>;
}

export interface SessionPage {
  orgId: string;
  pageIndex: number;
  pageSize: number;
  total: number;
  items: SessionView[];
  filters: AppliedFilters;
}

interface Row {
  id: string;
  org_id: string;
  user_id: string;
  metadata: string;
  legacy: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * Deleting a corpus deletes every live session bound to it (the spec's "cascades to … sessions",
 * read literally: one deleted corpus is enough, even when the session names others). A session
 * is live only while every corpus it is bound to is (BOUND_LIVE), so it is gone at the moment of
 * the deletion; its row is marked in the background (corpus/drops.ts), up to `limit` at a time,
 * as of the deletion's time, with its usage in the same transaction: one "removed" event per
 * owner and first corpus of the batch with the count (the reports sum amounts, so they end as
 * with one event per session; like the "created" event, it carries the session's first corpus).
 * Drops are carried out oldest first, so a session bound to two deleted corpora is marked, and
 * counted, with the first deletion, as when the cascade ran inside it.
 */
export function markCorpusSessions(db: Db, d: CorpusDrop, limit: number): number {
  if (limit <= 0) return 0;
  // In binding order from where the last turn stopped: the bindings before belong to sessions
  // marked then (or earlier), and walking them again made each turn slower than the one before.
  const rows = db
    .query<[number, string], [string, string, number, string, number]>(
      `SELECT sc.rowid, s.id FROM session_corpora sc JOIN sessions s ON s.id = sc.session_id
       WHERE sc.org_id = ? AND sc.corpus_id = ? AND sc.rowid > ? AND s.org_id = ? AND s.deleted_at IS NULL ORDER BY sc.rowid LIMIT ?`,
    )
    .values(d.orgId, d.corpusId, d.sessionsAfter, d.orgId, limit);
  if (!rows.length) return 0;
  const ids = rows.map((r) => r[1]);
  db.query("UPDATE corpus_drops SET sessions_after = ? WHERE id = ?").run(rows.at(-1)![0], d.id);
  const p = { org: d.orgId, at: d.at, ids: JSON.stringify(ids) };
  // min(pos) picks the first corpus without sorting each session's bindings (SQLite returns the bare column of that row).
  db.query(
    `INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source)
       SELECT $org, $at, 'sessions', 'removed', count(*), s.user_id, f.corpus_id, NULL
       FROM sessions s JOIN (SELECT session_id, corpus_id, min(pos) FROM session_corpora
                             WHERE session_id IN (SELECT value FROM json_each($ids)) GROUP BY session_id) f ON f.session_id = s.id
       WHERE +s.org_id = $org AND s.id IN (SELECT value FROM json_each($ids))
       GROUP BY s.user_id, f.corpus_id`,
  ).run(p);
  // `+org_id`, here and above: primary-key lookups of the batch, not a walk of the organization's sessions.
  db.query("UPDATE sessions SET deleted_at = $at WHERE +org_id = $org AND id IN (SELECT value FROM json_each($ids))").run(p);
  return ids.length;
}

/**
 * A session bound to a deleted corpus is gone even before its row is marked. Such a session
 * exists only while a drop of its organization is pending (corpus/drops.ts), so searches add this
 * condition only then; the lookup of one session always does.
 */
const BOUND_LIVE = `NOT EXISTS (SELECT 1 FROM session_corpora bc JOIN corpora bk ON bk.id = bc.corpus_id
  WHERE bc.session_id = s.id AND bk.deleted_at IS NOT NULL)`;

/** The route schemas check this too; the widget and any other caller must not store what search cannot read. */
function checkDepth(metadata: Record<string, unknown> | undefined) {
  if (metadata !== undefined) requireDepth(metadata, "body field 'metadata'");
}

const LIVE_CORPUS = "SELECT 1 FROM corpora WHERE org_id = ? AND id = ? AND deleted_at IS NULL";
const ORDER = "ORDER BY s.created_at DESC, s.id DESC";

export function sessionService(db: Db, clock: Clock) {
  const corpora = corpusService(db, clock);
  /**
   * `owner`, when given, is the only user whose sessions the caller may reach (a token minted for
   * another user, auth/jwt.ts confinedTo): another user's session is then as if it did not exist.
   */
  const row = (orgId: string, id: string, owner?: string): Row | null => {
    const r = db
      .query<Row, [string, string]>(`SELECT * FROM sessions s WHERE s.org_id = ? AND s.id = ? AND s.deleted_at IS NULL AND ${BOUND_LIVE}`)
      .get(orgId, id);
    return r && (owner === undefined || r.user_id === owner) ? r : null;
  };

  const corporaOf = (ids: string[]): Map<string, string[]> => {
    const out = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (!ids.length) return out;
    const rows = db
      .query<{ session_id: string; corpus_id: string }, string[]>(
        `SELECT session_id, corpus_id FROM session_corpora WHERE session_id IN (${ids.map(() => "?").join(",")}) ORDER BY pos`,
      )
      .all(...ids);
    for (const r of rows) out.get(r.session_id)?.push(r.corpus_id);
    return out;
  };

  /**
   * The pre-Versioning fields of an imported row, and only those: spread whole, any other key of
   * the old format (an id, createdAt in another form, corpusIds) replaced the session's own.
   */
  const legacyFields = (text: string | null): Partial<Record<(typeof LEGACY_KEYS)[number], unknown>> => {
    const stored = fromJson<unknown>(text, null);
    if (stored === null || typeof stored !== "object" || Array.isArray(stored)) return {};
    const out: Partial<Record<(typeof LEGACY_KEYS)[number], unknown>> = {};
    for (const key of LEGACY_KEYS) if (Object.hasOwn(stored, key)) out[key] = (stored as Record<string, unknown>)[key];
    return out;
  };

  const views = (rows: Row[]): SessionView[] => {
    const bound = corporaOf(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id,
      orgId: r.org_id,
      userId: r.user_id,
      corpusIds: bound.get(r.id) ?? [],
      metadata: fromJson(r.metadata, {}),
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
      ...legacyFields(r.legacy),
    }));
  };

  /** The organization's sessions rows of `ids`, in that order (ids a search found, in the same read transaction). */
  const byIds = (orgId: string, ids: string[]): Row[] => {
    const got = new Map<string, Row>();
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      const rows = db.query<Row, string[]>(rowsByIdSql(part.length)).all(orgId, ...part);
      for (const r of rows) got.set(r.id, r);
    }
    return ids.flatMap((id) => got.get(id) ?? []);
  };

  const firstCorpus = (id: string): string | null =>
    db.query<{ corpus_id: string }, [string]>("SELECT corpus_id FROM session_corpora WHERE session_id = ? ORDER BY pos LIMIT 1").get(id)?.corpus_id ?? null;

  function search(orgId: string, f: SessionFilter, p: Paging, owner?: string): SessionPage {
    const userId = f.userId || undefined;
    const corpusId = f.corpusId || undefined;
    const { key, value } = f;
    const jsonText = f.json?.trim() ? f.json : undefined;
    const filters: AppliedFilters = {};
    const where = ["s.org_id = ?", "s.deleted_at IS NULL"];
    const args: string[] = [orgId];
    const boundLive = dropsPending(db, orgId);
    if (boundLive) where.push(BOUND_LIVE);
    if (owner !== undefined) {
      // Not echoed in `filters`: it is the credential's limit, not a filter the caller chose.
      where.push("s.user_id = ?");
      args.push(owner);
    }
    // Metadata clauses only narrow what `match` decides; kept apart so they can be left out.
    const narrow: string[] = [];
    const narrowArgs: string[] = [];
    let match: ((m: Record<string, unknown>) => boolean) | undefined;
    let plan: MetaPlan | undefined;

    if (jsonText !== undefined) {
      let fragment: unknown;
      try {
        fragment = JSON.parse(jsonText);
      } catch {
        throw badRequest("Invalid query parameter 'json': not valid JSON");
      }
      if (fragment === null || typeof fragment !== "object" || Array.isArray(fragment)) {
        throw badRequest("Invalid query parameter 'json': must be a JSON object");
      }
      requireDepth(fragment, "query parameter 'json'");
      requireFinite(fragment, "query parameter 'json'");
      const frag = fragment as Record<string, unknown>;
      const pre = prefilter(frag);
      narrow.push(...pre.sql);
      narrowArgs.push(...pre.args);
      match = (m) => contains(m, frag);
      plan = fragmentPlan(frag);
      filters.json = frag;
    } else if (key !== undefined || value !== undefined) {
      if (key === undefined) throw badRequest("Query parameter 'key' is required when 'value' is given");
      if (value === undefined) throw badRequest("Query parameter 'value' is required when 'key' is given");
      narrow.push("EXISTS (SELECT 1 FROM json_each(s.metadata) j WHERE j.key = ?)");
      narrowArgs.push(key);
      match = (m) => pairMatches(m, key, value);
      plan = pairPlan(key, value);
      filters.key = key;
      filters.value = value;
    }
    if (userId !== undefined) {
      where.push("s.user_id = ?");
      args.push(userId);
      filters.userId = userId;
    }
    if (corpusId !== undefined) {
      // Unknown, deleted or another organization's corpus: refused alike, so nothing leaks.
      // The caller's own deleted corpus is a valid filter: an empty page, as chunk search answers.
      if (!corpora.owned(orgId, corpusId)) throw forbidden(`Corpus ${corpusId} is not a corpus of your organization`);
      where.push("EXISTS (SELECT 1 FROM session_corpora sc WHERE sc.session_id = s.id AND sc.corpus_id = ?)");
      args.push(corpusId);
      filters.corpusId = corpusId;
    }
    const offset = offsetOf(p);
    let total: number;
    let page: Row[];
    if (match && unindexed(db, orgId)) {
      // Metadata the index could not read (nested past SQLite's 1000 levels, stored before the
      // write limit): the organization is searched as before, every session read and tested here.
      const cond = where.join(" AND ");
      // Containment of nested fragments is not expressible in SQLite: the SQL prefilter narrows,
      // the exact test runs here over the organization's remaining sessions.
      const candidates = (narrowed: boolean) =>
        db
          .query<Row, string[]>(`SELECT s.* FROM sessions s WHERE ${[cond, ...(narrowed ? narrow : [])].join(" AND ")} ${ORDER}`)
          .all(...args, ...(narrowed ? narrowArgs : []));
      let all: Row[];
      try {
        all = candidates(true);
      } catch (e) {
        // A row stored before the depth limit may be nested past the 1000 levels json_each reads
        // ("malformed JSON"), which failed every metadata search of its organization. Without
        // the narrowing the exact test alone decides, a slower but equal answer.
        if (!String((e as Error)?.message).includes("malformed JSON")) throw e;
        all = candidates(false);
      }
      const hits = all.filter((r) => match(fromJson(r.metadata, {})));
      total = hits.length;
      page = hits.slice(offset, offset + p.pageSize);
    } else {
      // One read transaction: the counts that choose the driver, the total, the page and its rows see one state.
      const indexed: IndexedFilter = {
        users: [...(owner !== undefined ? [owner] : []), ...(userId !== undefined ? [userId] : [])],
        corpusId,
        conds: plan?.conds ?? [],
        boundLive,
      };
      [total, page] = db.transaction((): [number, Row[]] => {
        if (match && !plan!.exact) {
          // The index conditions are necessary, not sufficient: the exact test decides over what they leave.
          const hits = byIds(orgId, indexedCandidates(db, orgId, indexed)).filter((r) => match(fromJson(r.metadata, {})));
          return [hits.length, hits.slice(offset, offset + p.pageSize)];
        }
        const r = indexedSearch(db, orgId, indexed, p.pageSize, offset);
        return [r.total, byIds(orgId, r.ids)];
      })();
    }
    return { orgId, pageIndex: p.pageIndex, pageSize: p.pageSize, total, items: views(page), filters };
  }

  /** What `create` refuses, refused without writing anything; the corpus ids it would bind, in order. */
  function check(orgId: string, body: { corpusIds: string[]; metadata?: Record<string, unknown> }): string[] {
    checkDepth(body.metadata);
    const corpusIds = [...new Set(body.corpusIds)];
    if (!corpusIds.length) throw badRequest("Invalid body field 'corpusIds': at least one corpus is required");
    // Named by its index as sent (duplicates included), not in the de-duplicated list.
    for (const c of corpusIds) if (!db.query(LIVE_CORPUS).get(orgId, c)) throw notFound(`Corpus ${c}`, `corpusIds[${body.corpusIds.indexOf(c)}]`);
    return corpusIds;
  }

  return {
    check,

    /**
     * Every corpus must be live in the organization, else 404 naming it (as for any other org's
     * resource). `at` is the creation time when not now (a session opened with its first exchange
     * is dated when its question was asked, so it does not postdate that question).
     */
    create(orgId: string, userId: string, body: { corpusIds: string[]; metadata?: Record<string, unknown> }, at?: number): SessionView {
      const now = at ?? clock.now();
      const id = newId();
      db.transaction(() => {
        const corpusIds = check(orgId, body);
        db.query("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)").run(
          id,
          orgId,
          userId,
          toJson(body.metadata ?? {}),
          now,
          now,
        );
        const bind = db.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, ?)");
        corpusIds.forEach((c, i) => bind.run(id, orgId, c, i));
        recordUsage(db, orgId, { metric: "sessions", op: "created", amount: 1, at: now, userId, corpusId: corpusIds[0] });
      })();
      return views([row(orgId, id)!])[0]!;
    },

    /** NOT_FOUND when missing, deleted, another organization's, or not `owner`'s when given. */
    get(orgId: string, id: string, owner?: string): SessionView {
      const r = row(orgId, id, owner);
      if (!r) throw notFound("Session");
      return views([r])[0]!;
    },

    /** True when the session is live in the organization. */
    exists(orgId: string, id: string, owner?: string): boolean {
      return row(orgId, id, owner) != null;
    },

    /** The organization's sessions (only `owner`'s when given), newest first, closed by id. */
    list(orgId: string, p: Paging, owner?: string): SessionPage {
      return search(orgId, {}, p, owner);
    },

    /** GET /v1/session/q: userId, corpusId (403 outside the org), key+value (400 alone), json (wins). */
    query(orgId: string, f: SessionFilter, p: Paging, owner?: string): SessionPage {
      return search(orgId, f, p, owner);
    },

    /** Replaces metadata when sent; always moves updatedAt strictly forward. */
    patch(orgId: string, id: string, body: { metadata?: Record<string, unknown> }, owner?: string): SessionView {
      checkDepth(body.metadata);
      db.transaction(() => {
        const r = row(orgId, id, owner);
        if (!r) throw notFound("Session");
        const now = Math.max(clock.now(), r.updated_at + 1);
        db.query("UPDATE sessions SET metadata = ?, updated_at = ? WHERE org_id = ? AND id = ?").run(
          body.metadata !== undefined ? toJson(body.metadata) : r.metadata,
          now,
          orgId,
          id,
        );
      })();
      return views([row(orgId, id)!])[0]!;
    },

    /**
     * Soft delete. The usage event is attributed to the session's owner, not to the caller, so a
     * user's report counts the sessions they opened and lost (the corpus cascade does the same).
     */
    remove(orgId: string, _userId: string, id: string, owner?: string): void {
      const now = clock.now();
      db.transaction(() => {
        const r = row(orgId, id, owner);
        if (!r) throw notFound("Session");
        db.query("UPDATE sessions SET deleted_at = ? WHERE org_id = ? AND id = ?").run(now, orgId, id);
        recordUsage(db, orgId, { metric: "sessions", op: "removed", amount: 1, at: now, userId: r.user_id, corpusId: firstCorpus(id) });
      })();
    },
  };
}
export type SessionService = ReturnType<typeof sessionService>;
