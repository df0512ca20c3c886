import type { Db } from "../store/db.ts";
import { offsetOf, type Paging } from "../http/paging.ts";
import { view, type DocRow, type DocumentView } from "./rows.ts";
import { filenameKey } from "./fields.ts";

export const SORTS = { CREATED_AT: "created_at", UPDATED_AT: "updated_at", FILENAME: "filename_lc", SIZE: "size" } as const;
export type Sort = keyof typeof SORTS;

export interface DocFilter {
  corpusId: string;
  /** Filename prefix; `*` is the only wildcard. */
  q?: string;
  tags?: string[];
  tagsMatch?: "ANY" | "ALL";
  status?: string[];
  contentType?: string;
  lang?: string;
  provider?: string;
  /** Epoch ms, inclusive. */
  createdAfter?: number;
  /** Epoch ms, exclusive. */
  createdBefore?: number;
  sort?: Sort;
  order?: "ASC" | "DESC";
}

export interface DocPage {
  corpusId: string;
  pageIndex: number;
  pageSize: number;
  total: number;
  items: DocumentView[];
}

/**
 * The filename pattern for LIKE: the query is folded like filename_lc (filenameKey), LIKE's own
 * metacharacters (and the escape character) are escaped so `%` and `_` match themselves, and
 * `*` becomes `%`. Anchored at the start, open at the end.
 */
export function filenamePattern(q: string): string {
  return filenameKey(q).replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "%") + "%";
}

/**
 * The range of filename_lc that holds every match of `q`: names starting with its text before
 * the first `*`. LIKE cannot use an index here (it is case-insensitive, the column compares
 * bytes), so a prefix search read every document of the corpus (60–80 ms at 50,000); with the
 * range beside it, only the documents in range are read, and LIKE still decides. Undefined when
 * q starts with `*` or its last prefix character has no successor worth handling.
 */
export function filenameRange(q: string): { lo: string; hi: string } | undefined {
  const lo = filenameKey(q).split("*")[0]!;
  const chars = Array.from(lo);
  const last = chars.pop()?.codePointAt(0);
  if (last === undefined || (last >= 0xd7ff && last < 0xe000) || last >= 0x10ffff) return undefined;
  return { lo, hi: chars.join("") + String.fromCodePoint(last + 1) };
}

/** driverOf's answer when the filters' ranges are merged instead of one read and the others looked up. */
export const MERGE = -1;

/**
 * How to read a search of several filters: the index of the one to read in order, the one with
 * the fewest rows, as the others cost a lookup per row read; or MERGE when each has one value and
 * their ranges are of comparable sizes (at most four times the smallest), as walking them all in
 * order is then cheaper than the lookups. Each is counted no further than four times the
 * smallest so far.
 */
export function driverOf(db: Db, orgId: string, f: DocFilter): number {
  const terms = readsFilters(f) ? termsOf(f) : [];
  if (terms.length < 2) return 0;
  const count = db.query<{ n: number }, [string, string, string, string, number]>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM document_filters WHERE org_id = ? AND corpus_id = ? AND k = ? AND v IN (SELECT value FROM json_each(?)) LIMIT ?)`,
  );
  let best = 0;
  let least = Number.MAX_SAFE_INTEGER;
  const ns = terms.map((t, i) => {
    const n = count.get(orgId, f.corpusId, t.k, JSON.stringify(t.values), Math.min(Number.MAX_SAFE_INTEGER, least * 4 + 1))!.n;
    if (n < least) [best, least] = [i, n];
    return n;
  });
  return intersects(f) && ns.every((n) => n <= least * 4) ? MERGE : best;
}

/**
 * Listing and search share one query. The order always ends with the id in the same
 * direction, so it is total and walking pageIndex neither repeats nor skips a document,
 * even when many share a timestamp. Time sorts default to newest first; FILENAME and SIZE
 * default to ascending.
 */
export function searchDocuments(db: Db, orgId: string, f: DocFilter, p: Paging): DocPage {
  // A deleted corpus' documents may not be marked yet (corpus/drops.ts): it holds none.
  if (!db.query("SELECT 1 FROM corpora WHERE org_id = ? AND id = ? AND deleted_at IS NULL").get(orgId, f.corpusId)) {
    return { corpusId: f.corpusId, pageIndex: p.pageIndex, pageSize: p.pageSize, total: 0, items: [] };
  }
  const q = documentSearchSql(orgId, f, p, driverOf(db, orgId, f));
  const total = db.query<{ n: number }, [Record<string, string | number>]>(q.count).get(q.params)!.n;
  const rows = db.query<DocRow, [Record<string, string | number>]>(q.page).all(q.pageParams);
  return { corpusId: f.corpusId, pageIndex: p.pageIndex, pageSize: p.pageSize, total, items: rows.map(view) };
}

/** The document_filters index of each sort: its columns after (org_id, corpus_id, k, v). */
const FILTER_INDEXES: Record<Sort, string> = {
  CREATED_AT: "document_filters_created",
  UPDATED_AT: "document_filters_updated",
  FILENAME: "document_filters_filename",
  SIZE: "document_filters_size",
};

/**
 * Beyond this many values one filter is read as a whole and sorted instead of merged from one
 * ordered range per value: SQLite caps compound selects (500 terms), and a long list of tags is
 * no longer the rare narrow filter the merge is for.
 */
const MERGED_VALUES = 16;

/**
 * A filter document_filters answers: documents holding any of `values` under key `k` (tags ALL:
 * one term per tag). One of them is read from that table in the sort's order (driverOf picks
 * it); the others are looked up by document for each row it yields.
 */
export type Term = { k: "t" | "l" | "s"; values: string[] };

/**
 * Beyond this many distinct tags, tagsMatch=ALL is checked on the document row (one json_each
 * condition) instead of as one document_filters term per tag: each term is an arm of a compound
 * SELECT or a condition of its own, and SQLite refuses more than 500 arms and expressions over
 * 1000 levels deep, so a long list (a query string holds about 2,000) answered 500. A document
 * holds at most 32 tags, so such a search matches little and reading the corpus' rows is fine.
 */
export const ALL_TAG_TERMS = 32;

/** True when the tags filter is answered by document_filters terms (see ALL_TAG_TERMS). */
const tagsAsTerms = (f: DocFilter): boolean => f.tagsMatch !== "ALL" || new Set(f.tags ?? []).size <= ALL_TAG_TERMS;

export function termsOf(f: DocFilter): Term[] {
  const out: Term[] = [];
  const tags = tagsAsTerms(f) ? [...new Set(f.tags ?? [])] : [];
  if (tags.length) out.push(...(f.tagsMatch === "ALL" ? tags.map((t) => ({ k: "t" as const, values: [t] })) : [{ k: "t" as const, values: tags }]));
  if (f.lang !== undefined && f.lang !== "") out.push({ k: "l", values: [f.lang] });
  if (f.status?.length) out.push({ k: "s", values: [...new Set(f.status)] });
  return out;
}

/** True when the search's filters could be merged: several, of one value each, none needing the document row. */
export const intersects = (f: DocFilter): boolean => {
  const terms = readsFilters(f) ? termsOf(f) : [];
  return terms.length > 1 && terms.every((t) => t.values.length === 1) && !(f.contentType || f.provider) && tagsAsTerms(f);
};

/** True when the search reads document_filters; false when it reads documents as before. */
export const readsFilters = (f: DocFilter): boolean => termsOf(f).length > 0 && !(f.q && filenameRange(f.q));

/**
 * The conditions of `f` on the columns of the row `t` ("documents": unqualified, as before; or an
 * alias), their parameters added to `params`; `skip` names the filters answered elsewhere.
 */
function rowConditions(f: DocFilter, t: string, params: Record<string, string | number>, skip: Set<string>): { q: string[]; created: string[]; rest: string[] } {
  const q: string[] = [];
  const created: string[] = [];
  const rest: string[] = [];
  const c = t === "documents" ? "" : `${t}.`;
  if (f.q) {
    q.push(`${c}filename_lc LIKE $pattern ESCAPE '\\'`);
    params.pattern = filenamePattern(f.q);
    const range = filenameRange(f.q);
    if (range) {
      q.push(`${c}filename_lc >= $lo AND ${c}filename_lc < $hi`);
      Object.assign(params, range);
    }
  }
  if (f.tags?.length && !skip.has("tags")) {
    params.tags = JSON.stringify(f.tags);
    rest.push(
      f.tagsMatch === "ALL"
        ? `NOT EXISTS (SELECT 1 FROM json_each($tags) w WHERE w.value NOT IN (SELECT value FROM json_each(${t}.tags)))`
        : // LIMIT 1 keeps SQLite (3.51.1) from turning the EXISTS into a join: it then counted a
          // document holding two of the tags twice towards OFFSET, so pages repeated documents.
          `EXISTS (SELECT 1 FROM json_each(${t}.tags) h WHERE h.value IN (SELECT value FROM json_each($tags)) LIMIT 1)`,
    );
  }
  if (f.status?.length && !skip.has("status")) {
    params.status = JSON.stringify(f.status);
    rest.push(`${c}status IN (SELECT value FROM json_each($status))`);
  }
  for (const [k, col] of [["contentType", "content_type"], ["lang", "lang"], ["provider", "provider"]] as const) {
    const v = f[k];
    if (v !== undefined && v !== "" && !skip.has(k)) {
      params[k] = v;
      rest.push(`${c}${col} = $${k}`);
    }
  }
  if (f.createdAfter !== undefined) {
    params.after = f.createdAfter;
    created.push(`${c}created_at >= $after`);
  }
  if (f.createdBefore !== undefined) {
    params.before = f.createdBefore;
    created.push(`${c}created_at < $before`);
  }
  return { q, created, rest };
}

/** The count and page statements of a search with their parameters (the tests read their query plans). */
export function documentSearchSql(orgId: string, f: DocFilter, p: Paging, drive = 0) {
  // Identifiers cannot be bound: only the whitelisted column and direction ever reach the SQL.
  const sort: Sort = f.sort !== undefined && Object.hasOwn(SORTS, f.sort) ? f.sort : "CREATED_AT";
  const dir = f.order === "ASC" || f.order === "DESC" ? f.order : sort === "CREATED_AT" || sort === "UPDATED_AT" ? "DESC" : "ASC";
  const col = SORTS[sort];
  const params: Record<string, string | number> = { org: orgId, corpus: f.corpusId };
  const pageParams = { limit: p.pageSize, offset: offsetOf(p) };
  // A filename prefix has its own range of the filename index, usually narrower than a filter's
  // rows: such a search reads documents as before.
  if (!readsFilters(f)) {
    const c = rowConditions(f, "documents", params, new Set());
    const w = ["org_id = $org", "corpus_id = $corpus", "deleted_at IS NULL", ...c.q, ...c.rest, ...c.created].join(" AND ");
    return {
      count: `SELECT count(*) AS n FROM documents WHERE ${w}`,
      page: `SELECT * FROM documents WHERE ${w} ORDER BY ${col} ${dir}, id ${dir} LIMIT $limit OFFSET $offset`,
      params,
      pageParams: { ...params, ...pageParams },
    };
  }
  const terms = termsOf(f);
  const driver = terms[Math.max(0, drive)] ?? terms[0]!;
  // The filename pattern and the creation window are on the filter rows too; only contentType,
  // provider and a long tags=ALL list need the document row (both calls name the same parameters).
  const answered = new Set(["status", "lang", ...(tagsAsTerms(f) ? ["tags"] : [])]);
  const c = rowConditions(f, "f", params, answered);
  const d = rowConditions(f, "d", {}, answered).rest;
  const join = d.length ? " CROSS JOIN documents d ON d.id = f.document_id" : "";
  if (drive === MERGE && intersects(f)) {
    // Several filters of one value each (tags ALL, lang, a status): their ordered ranges merged
    // by SQLite (an ordered compound INTERSECT: a document is in all of them with the same sort
    // value and id), instead of a lookup by document for each row of one of them.
    terms.forEach((t, i) => (params[`v${i}`] = t.values[0]!));
    const arms = terms
      .map((t, i) => `SELECT f.${col} AS s, f.document_id FROM document_filters f INDEXED BY ${FILTER_INDEXES[sort]}
      WHERE ${["f.org_id = $org", "f.corpus_id = $corpus", `f.k = '${t.k}'`, `f.v = $v${i}`, ...c.q, ...c.created].join(" AND ")}`)
      .join(" INTERSECT ");
    return {
      count: `SELECT count(*) AS n FROM (${arms} ORDER BY s, document_id)`,
      page: `SELECT d.* FROM (${arms} ORDER BY s ${dir}, document_id ${dir} LIMIT $limit OFFSET $offset) p
        CROSS JOIN documents d ON d.id = p.document_id ORDER BY p.s ${dir}, p.document_id ${dir}`,
      params,
      pageParams: { ...params, ...pageParams },
    };
  }
  const others = terms
    .filter((t) => t !== driver)
    .map((t, i) => {
      params[`o${i}`] = JSON.stringify(t.values);
      // LIMIT 1: see the tags condition in rowConditions.
      return `EXISTS (SELECT 1 FROM document_filters g WHERE g.document_id = f.document_id AND g.k = '${t.k}' AND g.v IN (SELECT value FROM json_each($o${i})) LIMIT 1)`;
    });
  const values = driver.values.length > MERGED_VALUES ? [] : driver.values;
  values.forEach((v, i) => (params[`v${i}`] = v));
  if (values.length !== 1) params.vs = JSON.stringify(driver.values);
  const arm = (match: string, index: boolean) =>
    `SELECT f.${col} AS s, f.document_id FROM document_filters f${index ? ` INDEXED BY ${FILTER_INDEXES[sort]}` : ""}${join}
      WHERE ${["f.org_id = $org", "f.corpus_id = $corpus", `f.k = '${driver.k}'`, `f.v ${match}`, ...c.q, ...c.created, ...others, ...d].join(" AND ")}`;
  const any = "IN (SELECT value FROM json_each($vs))";
  const order = `ORDER BY s ${dir}, document_id ${dir} LIMIT $limit OFFSET $offset`;
  // One value: its range, in order. Several: one ordered range each, merged (UNION drops a
  // document met in two of them: same sort value, same id); a long list: its rows sorted.
  const ids =
    values.length === 1
      ? `${arm("= $v0", true)} ${order}`
      : values.length
        ? `${values.map((_, i) => arm(`= $v${i}`, true)).join(" UNION ")} ${order}`
        : `SELECT DISTINCT s, document_id FROM (${arm(any, false)}) ${order}`;
  // A document has one status and one lang, so only tags can meet a document twice.
  const count =
    values.length === 1 || driver.k !== "t"
      ? `SELECT count(*) AS n FROM (${arm(values.length === 1 ? "= $v0" : any, false)})`
      : `SELECT count(DISTINCT document_id) AS n FROM (${arm(any, false)})`;
  return {
    count,
    page: `SELECT d.* FROM (${ids}) p CROSS JOIN documents d ON d.id = p.document_id ORDER BY p.s ${dir}, p.document_id ${dir}`,
    params,
    pageParams: { ...params, ...pageParams },
  };
}

