/**
 * Session search over indexes (migration sessions-002). Every filter is a range of an index in
 * the listing's order (created_at DESC, id DESC), over the organization's live sessions only:
 *
 * - no filter: sessions_org (org, deleted_at, created_at, id);
 * - an owner (`userId`, or the credential's confinement): sessions_owner;
 * - a corpus: session_corpora_live (the binding carries its session's created_at and deleted_at);
 * - a metadata condition: session_meta_find (org, key, sub, val, created_at, session_id), where
 *   `val` is the JSON text of a top-level value, of a scalar child of a top-level object (sub
 *   '.' || child key) or of a scalar element of a top-level array (sub '[]').
 *
 * One filter: its count, and the page skipped to in its index (LIMIT/OFFSET). Several: each range
 * is counted in its index (kbqa runs no ANALYZE, so SQLite cannot know which is smallest), then
 * ranges of comparable sizes are merged (an ordered compound INTERSECT) and otherwise the smallest
 * drives and the others are probed by their full key; the page's rows are then fetched by id.
 * Every statement names its index (INDEXED BY): without statistics SQLite prefers the index that
 * spares the sort, which is the organization's whole listing.
 *
 * Metadata containment (match.ts) decomposes into such conditions exactly when the fragment's
 * values are scalars, objects of scalars or arrays of scalars (`fragmentPlan`, `pairPlan` for
 * key/value); otherwise the conditions only narrow and the exact test runs in JavaScript over
 * what they leave.
 */
import type { Db } from "../store/db.ts";

/** One index condition: the session has a row (key, sub, val) with val among `vals` (JSON texts). */
export interface MetaCond {
  key: string;
  sub: string;
  vals: string[];
}

/** `exact`: the conditions decide the match alone; otherwise they are necessary and JS decides. */
export interface MetaPlan {
  conds: MetaCond[];
  exact: boolean;
}

const scalar = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
/** A string SQLite compares as JavaScript does: lone surrogates are bound and decoded unlike JS (the index is then not trusted). */
const sane = (s: string) => s.isWellFormed();

/**
 * The conditions of a containment fragment (match.ts `contains`). A scalar value is its own JSON
 * text: stored metadata is JSON.stringify's text (toJson), so equal values have equal texts. A
 * non-finite number (JSON.parse reads 1e400 as Infinity, whose JSON text is "null") and a string
 * or key with a lone surrogate are left to the exact test.
 */
export function fragmentPlan(fragment: Record<string, unknown>): MetaPlan {
  const conds = new Map<string, MetaCond>();
  let exact = true;
  const add = (key: string, sub: string, val: string) => conds.set(JSON.stringify([key, sub, val]), { key, sub, vals: [val] });
  const usable = (v: unknown) => scalar(v) && (typeof v !== "string" || sane(v));
  for (const [k, v] of Object.entries(fragment)) {
    if (!sane(k)) {
      exact = false;
      continue;
    }
    if (Array.isArray(v) || (v !== null && typeof v === "object")) {
      const isArray = Array.isArray(v);
      const parts: [string, unknown][] = isArray ? v.map((e) => ["[]", e]) : Object.entries(v).map(([c, cv]) => [`.${c}`, cv]);
      let self = parts.length === 0; // element or child rows exist only under an array or object
      for (const [sub, e] of parts) {
        if (usable(e) && sane(sub)) add(k, sub, JSON.stringify(e));
        else {
          exact = false;
          self = true;
        }
      }
      if (self) add(k, "", isArray ? "[]" : "{}");
    } else if (usable(v)) add(k, "", JSON.stringify(v));
    else exact = false;
  }
  return { conds: [...conds.values()], exact };
}

/**
 * `key`/`value` (match.ts `pairMatches`): a stored string equal to the value (its JSON text), or
 * a number, boolean or null whose JSON text is the value itself.
 */
export function pairPlan(key: string, value: string): MetaPlan {
  if (!sane(key) || !sane(value)) return { conds: [], exact: false };
  const vals = [JSON.stringify(value)];
  try {
    const v: unknown = JSON.parse(value);
    if (v === null || typeof v === "number" || typeof v === "boolean") if (JSON.stringify(v) === value) vals.push(value);
  } catch {
    // not the JSON text of a scalar: only strings can match
  }
  return { conds: [{ key, sub: "", vals }], exact: true };
}

/** True when some live session of the organization has metadata the index could not read (sub '!'). */
export const unindexed = (db: Db, orgId: string): boolean =>
  db.query("SELECT 1 FROM session_meta INDEXED BY session_meta_find WHERE org_id = ? AND key = '' AND sub = '!' LIMIT 1").get(orgId) != null;

export interface IndexedFilter {
  /** Owners the session must have (the filter's userId and the credential's confinement). */
  users: string[];
  corpusId?: string;
  conds: MetaCond[];
  /** Sessions bound to a deleted corpus not yet marked are excluded (only while a drop is pending). */
  boundLive: boolean;
}

type Arg = string | number;
interface Source {
  from: string;
  where: string;
  args: Arg[];
  /** The session id column. */
  id: string;
  /** The condition on a row of another driver, whose session id is `x`. */
  probe: (x: string) => string;
}

const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

function sources(orgId: string, f: IndexedFilter): Source[] {
  const out: Source[] = [];
  // A probe seeks the other filter's own index with every column known (the driver's row gives
  // created_at and the id): in the driver's order, so the seeks walk that index forwards, about
  // twice as fast as primary-key lookups of the same rows.
  for (const u of f.users) {
    out.push({
      from: "sessions d INDEXED BY sessions_owner",
      where: "d.org_id = ? AND d.user_id = ? AND d.deleted_at IS NULL",
      args: [orgId, u],
      id: "d.id",
      probe: (x) => `EXISTS (SELECT 1 FROM sessions pu INDEXED BY sessions_owner
        WHERE pu.org_id = ? AND pu.user_id = ? AND pu.deleted_at IS NULL AND pu.created_at = d.created_at AND pu.id = ${x})`,
    });
  }
  if (f.corpusId !== undefined) {
    out.push({
      from: "session_corpora d INDEXED BY session_corpora_live",
      where: "d.org_id = ? AND d.corpus_id = ? AND d.deleted_at IS NULL",
      args: [orgId, f.corpusId],
      id: "d.session_id",
      probe: (x) => `EXISTS (SELECT 1 FROM session_corpora pc INDEXED BY session_corpora_live
        WHERE pc.org_id = ? AND pc.corpus_id = ? AND pc.deleted_at IS NULL AND pc.created_at = d.created_at AND pc.session_id = ${x})`,
    });
  }
  for (const c of f.conds) {
    out.push({
      from: "session_meta d INDEXED BY session_meta_find",
      where: `d.org_id = ? AND d.key = ? AND d.sub = ? AND d.val IN (${marks(c.vals.length)})`,
      args: [orgId, c.key, c.sub, ...c.vals],
      id: "d.session_id",
      probe: (x) => `EXISTS (SELECT 1 FROM session_meta pm INDEXED BY session_meta_find
        WHERE pm.org_id = ? AND pm.key = ? AND pm.sub = ? AND pm.val IN (${marks(c.vals.length)}) AND pm.created_at = d.created_at AND pm.session_id = ${x})`,
    });
  }
  if (!out.length) {
    out.push({
      from: "sessions d INDEXED BY sessions_org",
      where: "d.org_id = ? AND d.deleted_at IS NULL",
      args: [orgId],
      id: "d.id",
      probe: () => "1",
    });
  }
  return out;
}

const BOUND_LIVE = (x: string) => `NOT EXISTS (SELECT 1 FROM session_corpora bc JOIN corpora bk ON bk.id = bc.corpus_id
  WHERE bc.session_id = ${x} AND bk.deleted_at IS NOT NULL)`;

/** The statements of a search: `count` binds `args`, `page` binds `args` then LIMIT and OFFSET (LIMIT -1: all). */
export interface SearchSql {
  count: string;
  page: string;
  args: Arg[];
}

/**
 * The statements for a driver chosen among the filter's sources (index `driver`), the others
 * probed in the order `probes` gives (the most selective first: a row fails sooner). Exported
 * for the plan test.
 */
export function searchSql(orgId: string, f: IndexedFilter, driver = 0, probes?: number[]): SearchSql {
  const all = sources(orgId, f);
  const d = all[driver]!;
  const where = [d.where];
  const args = [...d.args];
  for (const i of probes ?? all.map((_, i) => i)) {
    if (i === driver) continue;
    where.push(all[i]!.probe(d.id));
    args.push(...all[i]!.args);
  }
  if (f.boundLive) where.push(BOUND_LIVE(d.id));
  const body = `FROM ${d.from} WHERE ${where.join(" AND ")}`;
  return {
    count: `SELECT count(*) AS n ${body}`,
    page: `SELECT ${d.id} AS id ${body} ORDER BY d.created_at DESC, ${d.id} DESC LIMIT ? OFFSET ?`,
    args,
  };
}

/**
 * Every source's range intersected by SQLite's merge of ordered compound SELECTs (MERGE
 * (INTERSECT)): each range read once in its index, in the listing's order, no sort. Exported for
 * the plan test.
 */
export function intersectSql(orgId: string, f: IndexedFilter): { sql: string; args: Arg[] } {
  const all = sources(orgId, f);
  return {
    sql: `${all.map((s) => `SELECT d.created_at, ${s.id} FROM ${s.from} WHERE ${s.where}`).join(" INTERSECT ")} ORDER BY 1 DESC, 2 DESC`,
    args: all.flatMap((s) => s.args),
  };
}

interface Counted {
  driver: number;
  /** Each source's row count, exact below `cap` (at least `cap` otherwise). */
  counts: number[];
  cap: number;
  total?: number;
}

/**
 * The driver: the source with the fewest rows. Each is counted in its own index range, all up to
 * a cap that grows eightfold until one range falls short of it, so the counting costs about the
 * sources times the smallest range, not the largest. With one source and nothing else to check,
 * its count is the total.
 */
function chooseDriver(db: Db, orgId: string, f: IndexedFilter): Counted {
  const all = sources(orgId, f);
  if (all.length === 1) {
    if (f.boundLive) return { driver: 0, counts: [Infinity], cap: Infinity };
    const s = all[0]!;
    const n = db.query<{ n: number }, Arg[]>(`SELECT count(*) AS n FROM ${s.from} WHERE ${s.where}`).get(...s.args)!.n;
    return { driver: 0, counts: [n], cap: Infinity, total: n };
  }
  for (let cap = 1024; ; cap *= 8) {
    const counts = all.map((s) => db.query<{ n: number }, Arg[]>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${s.from} WHERE ${s.where} LIMIT ?)`).get(...s.args, cap)!.n);
    const least = Math.min(...counts);
    if (least < cap) {
      const driver = counts.indexOf(least);
      return least === 0 ? { driver, counts, cap, total: 0 } : { driver, counts, cap };
    }
  }
}

/**
 * Reading a range in a merge costs about a tenth of probing one row (a seek per row, measured at
 * 100,000 sessions): when all the ranges together hold fewer than this many times the driver's
 * rows per probe, they are merged instead of probed.
 */
const MERGE_OVER_PROBE = 8;

/**
 * The total and the page's session ids, in the listing's order. One range alone: its count, and
 * the page skipped to in the index. Several (or the bound-corpus check): every match listed in one
 * pass, so a deep page costs what the first does: the ranges merged when they are of comparable
 * sizes, else the smallest read and the others probed for each of its rows (the most selective
 * first).
 */
export function indexedSearch(db: Db, orgId: string, f: IndexedFilter, limit: number, offset: number): { total: number; ids: string[] } {
  if (new Set(f.users).size > 1) return { total: 0, ids: [] };
  const filter = { ...f, users: [...new Set(f.users)] };
  const { driver, counts, cap, total: known } = chooseDriver(db, orgId, filter);
  if (known === 0) return { total: 0, ids: [] };
  if (known !== undefined) {
    const q = searchSql(orgId, filter, driver);
    const ids = offset >= known ? [] : db.query<[string], Arg[]>(q.page).values(...q.args, limit, offset).map((r) => r[0] as string);
    return { total: known, ids };
  }
  const others = counts.map((_, i) => i).filter((i) => i !== driver);
  const sum = counts.reduce((a, n) => a + n, 0);
  let all: string[];
  if (!filter.boundLive && counts.every((n) => n < cap) && sum <= MERGE_OVER_PROBE * others.length * counts[driver]!) {
    const q = intersectSql(orgId, filter);
    all = db.query<[number, string], Arg[]>(q.sql).values(...q.args).map((r) => r[1] as string);
  } else {
    const q = searchSql(orgId, filter, driver, others.sort((x, y) => counts[x]! - counts[y]!));
    all = db.query<[string], Arg[]>(q.page).values(...q.args, -1, 0).map((r) => r[0] as string);
  }
  return { total: all.length, ids: all.slice(offset, offset + limit) };
}

/** Every session id the filter's conditions leave, in the listing's order (for the exact test in JS). */
export function indexedCandidates(db: Db, orgId: string, f: IndexedFilter): string[] {
  return indexedSearch(db, orgId, f, Number.MAX_SAFE_INTEGER, 0).ids;
}

/**
 * The organization's sessions rows of `n` ids. `+org_id`: primary-key lookups; left to itself
 * SQLite walked an organization index for them (17 ms a page at 100,000 sessions).
 */
export const rowsByIdSql = (n: number): string => `SELECT * FROM sessions WHERE +org_id = ? AND id IN (${marks(n)})`;
