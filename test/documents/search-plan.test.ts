// Sorted document searches read the whole corpus into a sort (UPDATED_AT, SIZE, FILENAME: 65 ms
// for page 0 of 50,000 documents, 250 ms for page 1500), and a filename prefix read every
// document of the corpus because LIKE cannot use an index on a byte-compared column. The query
// plans of the statements the route runs are checked on the server's own database; the answers
// over HTTP are checked against an order computed here.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, sql } from "./helpers.ts";
import { documentSearchSql, filenameRange, type DocFilter } from "../../src/documents/search.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
const docs: { id: string; name: string; size: number; updated: number }[] = [];
const NAMES = ["Report-b.md", "report-a.md", "REPORT_x.md", "memo.md", "Émile.md", "éte.md", "zeta.md", "a*b.md", "report%.md", "rapport.md"];

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
  for (const [i, name] of NAMES.entries()) {
    const id = (await initOk(a, { corpusId, filename: name, contentType: "text/markdown" })).document.id as string;
    const size = (i * 7) % 5; // ties, broken by id
    const updated = 1_000 + ((i * 3) % 4);
    sql(k, "UPDATE documents SET size = ?, updated_at = ? WHERE id = ?", size, updated, id);
    docs.push({ id, name, size, updated });
  }
});
afterAll(() => k.stop());

const plans = (f: DocFilter, pageIndex = 3) => {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    const q = documentSearchSql(a.orgId, f, { pageSize: 25, pageIndex });
    const plan = (s: string, p: Record<string, unknown>) => (db.query(`EXPLAIN QUERY PLAN ${s}`).all(p as never) as { detail: string }[]).map((r) => r.detail).join("\n");
    return { count: plan(q.count, q.params), page: plan(q.page, q.pageParams) };
  } finally {
    db.close();
  }
};

test("each sort reads its page in index order: no sort of the corpus", () => {
  for (const [sort, index] of [["CREATED_AT", "documents_corpus"], ["UPDATED_AT", "documents_updated"], ["SIZE", "documents_size"], ["FILENAME", "documents_filename"]] as const) {
    for (const order of ["ASC", "DESC"] as const) {
      const { page } = plans({ corpusId, sort, order });
      expect(page).toContain(`USING INDEX ${index} (org_id=? AND corpus_id=? AND deleted_at=?)`);
      expect(page).not.toContain("TEMP B-TREE");
    }
  }
});

test("a filename prefix reads only its range of the filename index", () => {
  for (const q of ["report", "report*final", "émile", "a*", "Z"]) {
    const { count, page } = plans({ corpusId, q, sort: "FILENAME" });
    for (const p of [count, page]) expect(p).toContain("documents_filename (org_id=? AND corpus_id=? AND deleted_at=? AND filename_lc>? AND filename_lc<?)");
  }
  expect(plans({ corpusId, q: "*final" }).count).not.toContain("filename_lc>?");
  expect(filenameRange("Report*x")).toEqual({ lo: "report", hi: "reporu" });
  expect(filenameRange("*x")).toBeUndefined();
  expect(filenameRange("\u{10FFFF}")).toBeUndefined();
});

test("over HTTP the sorted pages and the prefix matches are those of the rule", async () => {
  const get = async (query: string) => {
    const r = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&pageSize=3${query}`);
    expect(r.status).toBe(200);
    return r.body;
  };
  const walk = async (query: string) => {
    const out: string[] = [];
    for (let i = 0; ; i++) {
      const b = await get(`${query}&pageIndex=${i}`);
      out.push(...b.items.map((d: any) => d.id));
      if (b.items.length < 3) return out;
    }
  };
  const by = (key: (d: (typeof docs)[0]) => string | number, dir: 1 | -1) =>
    [...docs].sort((x, y) => (key(x) < key(y) ? -dir : key(x) > key(y) ? dir : x.id < y.id ? -dir : x.id > y.id ? dir : 0)).map((d) => d.id);
  expect(await walk("&sort=SIZE")).toEqual(by((d) => d.size, 1));
  expect(await walk("&sort=SIZE&order=DESC")).toEqual(by((d) => d.size, -1));
  expect(await walk("&sort=UPDATED_AT")).toEqual(by((d) => d.updated, -1));
  expect(await walk("&sort=FILENAME")).toEqual(by((d) => d.name.toLowerCase(), 1));
  const names = async (q: string) => (await walk(`&q=${encodeURIComponent(q)}&sort=FILENAME`)).map((id) => docs.find((d) => d.id === id)!.name);
  expect(await names("report")).toEqual(["report%.md", "report-a.md", "Report-b.md", "REPORT_x.md"]);
  expect(await names("REPORT_")).toEqual(["REPORT_x.md"]);
  expect(await names("report%")).toEqual(["report%.md"]);
  expect(await names("r*port")).toEqual(["rapport.md", "report%.md", "report-a.md", "Report-b.md", "REPORT_x.md"]);
  expect(await names("É")).toEqual(["Émile.md", "éte.md"]);
  expect(await names("a*")).toEqual(["a*b.md"]);
  expect(await names("*.md")).toHaveLength(NAMES.length);
});
