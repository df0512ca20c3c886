/**
 * Document search as the version before migration documents-009 ran it (src/documents/search.ts
 * `documentSearchSql`), kept verbatim as the baseline of bench-listings.ts and of the tests that
 * compare answers: status, tags and lang are tested on every live document of the corpus, read
 * through the sort's index. Returns the count and page statements with their parameters.
 */
import { filenamePattern, filenameRange, SORTS, type DocFilter, type Sort } from "../../src/documents/search.ts";
import { offsetOf, type Paging } from "../../src/http/paging.ts";
import { migrations } from "../../src/documents/migrations.ts";

const DOCUMENTS_009 = migrations.find((m) => m.id === "documents-009")!.sql;

/** documents-009's triggers, by name (the write benchmark drops and recreates them). */
export const TRIGGERS_009 = DOCUMENTS_009.match(/CREATE TRIGGER \w+[\s\S]*?\bEND;/g)!;
export const DROP_TRIGGERS_009 = TRIGGERS_009.map((t) => `DROP TRIGGER ${t.split(/\s+/)[2]};`).join("\n");

/** Takes a database back to the schema before documents-009 (for the baseline, and to test the migration). */
export const UNDO_DOCUMENTS_009 = `${DROP_TRIGGERS_009}
  DROP TABLE document_filters;
  DELETE FROM _migrations WHERE id = 'documents-009';`;

export function previousDocumentSearchSql(orgId: string, f: DocFilter, p: Paging) {
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
        : "EXISTS (SELECT 1 FROM json_each(documents.tags) h WHERE h.value IN (SELECT value FROM json_each($tags)))",
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
