// Listings filtered by status, tags or lang tested every live document of the corpus (47–105 ms
// at 50,000 documents). documents-009 gives each filter value its rows in document_filters with
// an index per sort; the query plans of the statements the route runs are checked here on the
// server's own database, for every sort in both directions: the page is read from the filter's
// rows in order (no sort, no documents scan) and the total counted in the same rows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk } from "./helpers.ts";
import { documentSearchSql, driverOf, MERGE, SORTS, type DocFilter, type Sort } from "../../src/documents/search.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
const INDEX: Record<Sort, string> = { CREATED_AT: "created", UPDATED_AT: "updated", FILENAME: "filename", SIZE: "size" };

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
  for (const tags of [["a"], ["a", "b"], []]) await initOk(a, { corpusId, filename: "x.md", contentType: "text/markdown", tags, lang: "fr" });
});
afterAll(() => k.stop());

function plans(f: Omit<DocFilter, "corpusId">, pageIndex = 40) {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true, strict: true });
  try {
    const full = { corpusId, ...f };
    const q = documentSearchSql(a.orgId, full, { pageSize: 25, pageIndex }, driverOf(db, a.orgId, full));
    const plan = (s: string, p: Record<string, unknown>) => (db.query(`EXPLAIN QUERY PLAN ${s}`).all(p as never) as { detail: string }[]).map((r) => r.detail).join("\n");
    return { count: plan(q.count, q.params), page: plan(q.page, q.pageParams) };
  } finally {
    db.close();
  }
}

const SHAPES: [string, Omit<DocFilter, "corpusId">][] = [
  ["one status", { status: ["READY"] }],
  ["two statuses", { status: ["READY", "FAILED"] }],
  ["a tag", { tags: ["a"] }],
  ["two tags, ANY", { tags: ["a", "b"] }],
  ["two tags, ALL", { tags: ["a", "b"], tagsMatch: "ALL" }],
  ["lang", { lang: "fr" }],
  ["lang and status", { lang: "fr", status: ["AWAITING_UPLOAD"] }],
  ["a tag and a creation window", { tags: ["a"], createdAfter: 1, createdBefore: 2 ** 40 }],
];

test("each filter with each sort reads its page in order from the filter's rows: no sort, no documents scan", () => {
  for (const [name, f] of SHAPES) {
    for (const sort of Object.keys(SORTS) as Sort[]) {
      for (const order of ["ASC", "DESC"] as const) {
        const { count, page } = plans({ ...f, sort, order });
        const what = `${name}, ${sort} ${order}:\n${page}`;
        // Covering unless the creation window needs the row's created_at (other sorts than CREATED_AT).
        expect(page, what).toMatch(new RegExp(`SEARCH f USING (COVERING )?INDEX document_filters_${INDEX[sort]} \\(org_id=\\? AND corpus_id=\\? AND k=\\? AND v=\\?`));
        expect(page, what).not.toContain("TEMP B-TREE");
        expect(page, what).not.toMatch(/SCAN (documents|d)\b|USING (COVERING )?INDEX documents_/);
        // The documents rows read are the page's, by primary key.
        expect(page, what).toContain("SEARCH d USING INDEX sqlite_autoindex_documents_1 (id=?)");
        expect(count, `${name}, count:\n${count}`).toMatch(/SEARCH f USING (COVERING )?INDEX document_filters_\w+ \(org_id=\? AND corpus_id=\? AND k=\? AND v=\?/);
        expect(count).not.toMatch(/SCAN (documents|d)\b|INDEX documents_/);
      }
    }
  }
});

test("two tags of ANY are merged from their ordered ranges; a long list is read whole and sorted, still from the filter's rows", () => {
  expect(plans({ tags: ["a", "b"], sort: "SIZE" }).page).toContain("MERGE (UNION)");
  const long = plans({ tags: Array.from({ length: 40 }, (_, i) => `t${i}`), sort: "SIZE" });
  expect(long.page).toContain("SEARCH f USING COVERING INDEX document_filters_");
  expect(long.page).not.toMatch(/SCAN (documents|d)\b|INDEX documents_/);
});

test("combined filters: ranges of comparable sizes merged in order, otherwise the smallest read and the others looked up by document", () => {
  // Three documents, all AWAITING_UPLOAD and lang fr; tags a on two, b on one.
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true, strict: true });
  try {
    expect(driverOf(db, a.orgId, { corpusId, lang: "fr", status: ["FAILED"] })).toBe(1);
    expect(driverOf(db, a.orgId, { corpusId, lang: "fr", status: ["AWAITING_UPLOAD"] })).toBe(MERGE);
    expect(driverOf(db, a.orgId, { corpusId, tags: ["a", "b"], tagsMatch: "ALL" })).toBe(MERGE);
    // Two statuses are not one range: the smaller filter is read.
    expect(driverOf(db, a.orgId, { corpusId, lang: "fr", status: ["AWAITING_UPLOAD", "FAILED"] })).toBe(0);
  } finally {
    db.close();
  }
  expect(plans({ lang: "fr", status: ["FAILED"] }).page).toContain("SEARCH g USING PRIMARY KEY (document_id=? AND k=? AND v=?)");
  for (const sort of Object.keys(SORTS) as Sort[]) {
    for (const order of ["ASC", "DESC"] as const) {
      const { count, page } = plans({ tags: ["a", "b"], tagsMatch: "ALL", lang: "fr", sort, order });
      for (const p of [count, page]) {
        expect(p, p).toContain("MERGE (INTERSECT)");
        expect(p, p).not.toContain("TEMP B-TREE");
      }
    }
  }
});

test("a filename prefix with a filter still reads the prefix's range of the filename index", () => {
  const { page } = plans({ q: "rep", status: ["READY"], sort: "FILENAME" });
  expect(page).toContain("documents_filename (org_id=? AND corpus_id=? AND deleted_at=? AND filename_lc>? AND filename_lc<?)");
});
