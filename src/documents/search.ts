import type { Db } from "../store/db.ts";
import { offsetOf, type Paging } from "../http/paging.ts";
import { view, type DocRow, type DocumentView } from "./rows.ts";

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
 * The filename pattern for LIKE: the query is lower-cased like filename_lc, LIKE's own
 * metacharacters (and the escape character) are escaped so `%` and `_` match themselves, and
 * `*` becomes `%`. Anchored at the start, open at the end.
 */
export function filenamePattern(q: string): string {
  return q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "%") + "%";
}

/**
 * The range of filename_lc that holds every match of `q`: names starting with its text before
 * the first `*`. LIKE cannot use an index here (it is case-insensitive, the column compares
 * bytes), so a prefix search read every document of the corpus (60–80 ms at 50,000); with the
 * range beside it, only the documents in range are read, and LIKE still decides. Undefined when
 * q starts with `*` or its last prefix character has no successor worth handling.
 */
export function filenameRange(q: string): { lo: string; hi: string } | undefined {
  const lo = q.toLowerCase().split("*")[0]!;
  const chars = Array.from(lo);
  const last = chars.pop()?.codePointAt(0);
  if (last === undefined || (last >= 0xd7ff && last < 0xe000) || last >= 0x10ffff) return undefined;
  return { lo, hi: chars.join("") + String.fromCodePoint(last + 1) };
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
  const q = documentSearchSql(orgId, f, p);
  const total = db.query<{ n: number }, [Record<string, string | number>]>(q.count).get(q.params)!.n;
  const rows = db.query<DocRow, [Record<string, string | number>]>(q.page).all(q.pageParams);
  return { corpusId: f.corpusId, pageIndex: p.pageIndex, pageSize: p.pageSize, total, items: rows.map(view) };
}

/** The count and page statements of a search with their parameters (the tests read their query plans). */
export function documentSearchSql(orgId: string, f: DocFilter, p: Paging) {
  const where = ["org_id = $org", "corpus_id = $corpus", "deleted_at IS NULL"];
  const params: Record<string, string | number> = { org: orgId, corpus: f.corpusId };
  if (f.q) {
    where.push("filename_lc LIKE $pattern ESCAPE '\\'");
    params.pattern = filenamePattern(f.q);
    const range = filenameRange(f.q);
    if (range) {
      where.push("filename_lc >= $lo AND filename_lc < $hi");
      Object.assign(params, range);
    }
  }
  if (f.tags?.length) {
    params.tags = JSON.stringify(f.tags);
    where.push(
      f.tagsMatch === "ALL"
        ? "NOT EXISTS (SELECT 1 FROM json_each($tags) w WHERE w.value NOT IN (SELECT value FROM json_each(documents.tags)))"
        : // LIMIT 1 keeps SQLite (3.51.1) from turning the EXISTS into a join: it then counted a
          // document holding two of the tags twice towards OFFSET, so pages repeated documents.
          "EXISTS (SELECT 1 FROM json_each(documents.tags) h WHERE h.value IN (SELECT value FROM json_each($tags)) LIMIT 1)",
    );
  }
  if (f.status?.length) {
    params.status = JSON.stringify(f.status);
    where.push("status IN (SELECT value FROM json_each($status))");
  }
  for (const [k, col] of [["contentType", "content_type"], ["lang", "lang"], ["provider", "provider"]] as const) {
    const v = f[k];
    if (v !== undefined && v !== "") {
      params[k] = v;
      where.push(`${col} = $${k}`);
    }
  }
  if (f.createdAfter !== undefined) {
    params.after = f.createdAfter;
    where.push("created_at >= $after");
  }
  if (f.createdBefore !== undefined) {
    params.before = f.createdBefore;
    where.push("created_at < $before");
  }
  // Identifiers cannot be bound: only the whitelisted column and direction ever reach the SQL.
  const sort: Sort = f.sort !== undefined && Object.hasOwn(SORTS, f.sort) ? f.sort : "CREATED_AT";
  const dir = f.order === "ASC" || f.order === "DESC" ? f.order : sort === "CREATED_AT" || sort === "UPDATED_AT" ? "DESC" : "ASC";
  const w = where.join(" AND ");
  return {
    count: `SELECT count(*) AS n FROM documents WHERE ${w}`,
    page: `SELECT * FROM documents WHERE ${w} ORDER BY ${SORTS[sort]} ${dir}, id ${dir} LIMIT $limit OFFSET $offset`,
    params,
    pageParams: { ...params, limit: p.pageSize, offset: offsetOf(p) },
  };
}
