// Filtered listings (status, tags ANY/ALL, lang, alone and combined, each sort and order, paging)
// over HTTP, compared with the previous statements (scripts/lib/document-search-previous.ts) on
// the server's own database: odd tags, tags stored in shapes only older rows or direct writes
// have, deletions, replacements, patches, another corpus and another organization (one of its
// rows written straight into this corpus) that must never show. The previous statements' page
// is sliced from their whole ordered list: their own OFFSET miscounted documents holding two
// tags of an ANY filter (SQLite 3.51.1).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { mulberry32 } from "../helpers/seeded.ts";
import { corpus, initOk, sql } from "./helpers.ts";
import { STATUSES } from "../../src/documents/rows.ts";
import type { DocFilter } from "../../src/documents/search.ts";
import { previousDocumentSearchSql } from "../../scripts/lib/document-search-previous.ts";

const SEED = Number(process.env.SEED ?? Date.now() % 1_000_000);
console.log(`filter-compare seed ${SEED}`);
const random = mulberry32(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const some = <T>(xs: readonly T[], most = 3): T[] => Array.from({ length: 1 + Math.floor(random() * most) }, () => pick(xs));
const TAGS = ["a", "b", "x,y", 'q"t', "ü", "e\u0301", "%", "_", "*", "\\", "😀", "[1]", "null", "1", "A", " sp "];
const LANGS = ["en", "fr", "de", "pt-BR"];
const SORTS = ["CREATED_AT", "UPDATED_AT", "FILENAME", "SIZE"] as const;

let k: Kbqa;
let a: Org;
let b: Org;
let corpusId: string;
let otherCorpus: string;
let foreign: string;
const ids: string[] = [];

beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  corpusId = await corpus(a);
  otherCorpus = await corpus(a, "other");
  const bCorpus = await corpus(b);
  for (let i = 0; i < 50; i++) {
    const body = { filename: `${pick(["Report", "memo", "é"])}-${i}.md`, contentType: pick(["text/markdown", "text/plain"]), tags: some(TAGS, 4), lang: random() < 0.7 ? pick(LANGS) : null };
    ids.push((await initOk(a, { corpusId, ...body })).document.id);
    await initOk(a, { corpusId: otherCorpus, ...body });
    await initOk(b, { corpusId: bCorpus, ...body });
  }
  // Another organization's row in this corpus (no route writes one): never to be listed.
  foreign = (await initOk(b, { corpusId: bCorpus, tags: ["a", "b"], lang: "en" })).document.id;
  sql(k, "UPDATE documents SET corpus_id = ? WHERE id = ?", corpusId, foreign);
});
afterAll(() => k?.stop());

/** One round of changes, as the routes and the ingestion worker make them. */
async function mutate() {
  for (const id of ids) {
    const r = random();
    const row = sql<{ status: string; deleted_at: number | null }>(k, "SELECT status, deleted_at FROM documents WHERE id = ?", id)[0]!;
    if (row.deleted_at !== null) continue;
    if (r < 0.15) {
      // The worker: a state, the detected lang, a size and the time of the change (ties on purpose).
      sql(k, "UPDATE documents SET status = ?, lang = ?, size = ?, updated_at = ? WHERE id = ?", pick(STATUSES), random() < 0.8 ? pick(LANGS) : null, random() < 0.2 ? null : Math.floor(random() * 5), 1000 + Math.floor(random() * 4), id);
    } else if (r < 0.3) {
      expect((await a.api("PATCH", `/v1/doc/${id}`, { tags: random() < 0.2 ? null : some(TAGS, 5), filename: `${pick(["b", "B", "ä"])}-${id.slice(0, 4)}.md` })).status).toBe(200);
    } else if (r < 0.38) {
      if (row.status !== "READY" && row.status !== "FAILED") sql(k, "UPDATE documents SET status = 'READY' WHERE id = ?", id);
      expect((await a.api("PUT", `/v1/doc/${id}/init`)).status).toBe(200);
    } else if (r < 0.43) {
      expect((await a.api("DELETE", `/v1/doc/${id}`)).status).toBe(200);
    } else if (r < 0.48) {
      // Tags as older rows or direct writes hold them: duplicates, untrimmed, SQL NULL. (Numbers,
      // nesting or JSON nulls make every listing holding the document a 400, as before: its
      // tags are not strings. A JSON null also made the previous statement match it for any
      // ALL filter, `NOT IN` a set holding NULL being unknown; it now matches no tag.)
      sql(k, "UPDATE documents SET tags = ? WHERE id = ?", pick(['["a","a"]', "[]", '[" sp "]', '["A","a","A"]', null]), id);
    }
  }
}

function filter(list: boolean): { query: string; f: DocFilter; pageSize: number; pageIndex: number } {
  const p: string[] = [];
  const f: DocFilter = { corpusId };
  const r = random();
  if (r < 0.6) {
    f.tags = some(TAGS);
    for (const t of f.tags) p.push(`tags=${encodeURIComponent(t)}`);
    f.tags = f.tags.map((t) => t.trim());
    if (!list && random() < 0.5) p.push(`tagsMatch=${(f.tagsMatch = pick(["ANY", "ALL"] as const))}`);
  }
  if (r > 0.4 || random() < 0.3) {
    f.status = some(STATUSES, 2);
    for (const s of f.status) p.push(`status=${s}`);
  }
  if (!list && (r > 0.8 || random() < 0.3)) p.push(`lang=${encodeURIComponent((f.lang = pick(LANGS)))}`);
  if (!list && random() < 0.8) p.push(`sort=${(f.sort = pick(SORTS))}`);
  if (!list && random() < 0.6) p.push(`order=${(f.order = pick(["ASC", "DESC"] as const))}`);
  if (!list && random() < 0.1) p.push(`q=${(f.q = pick(["b", "*-1", "report"]))}`);
  // Read on the document row, beside the filter's rows.
  if (!list && random() < 0.15) p.push(`contentType=${encodeURIComponent((f.contentType = pick(["text/markdown", "text/plain"])))}`);
  const pageSize = 1 + Math.floor(random() * 7);
  const pageIndex = Math.floor(random() * 6);
  p.push(`pageSize=${pageSize}`, `pageIndex=${pageIndex}`);
  return { query: p.join("&"), f, pageSize, pageIndex };
}

test(`filtered listings answer as the previous statements did (seed ${SEED})`, async () => {
  let compared = 0;
  let nonEmpty = 0;
  for (let round = 0; round < 3; round++) {
    await mutate();
    const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true, strict: true });
    try {
      for (let i = 0; i < 60; i++) {
        const list = random() < 0.25;
        const { query, f, pageSize, pageIndex } = filter(list);
        const r = await a.api("GET", `/v1/doc/${list ? "" : "q"}?corpusId=${corpusId}&${query}`);
        expect(r.status, `${query} ${JSON.stringify(r.body)}`).toBe(200);
        const q = previousDocumentSearchSql(a.orgId, f, { pageSize, pageIndex });
        const total = (db.query(q.count).get(q.params as never) as { n: number }).n;
        const all = (db.query(q.page.replace(" LIMIT $limit OFFSET $offset", "")).all(q.params as never) as { id: string }[]).map((d) => d.id);
        const got = r.body.items.map((d: { id: string }) => d.id);
        expect({ query, total: r.body.total, ids: got }).toEqual({ query, total, ids: all.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize) });
        expect(got).not.toContain(foreign);
        compared++;
        if (total > 0) nonEmpty++;
      }
    } finally {
      db.close();
    }
  }
  // The draw must exercise matches, not only empty answers.
  expect(nonEmpty).toBeGreaterThan(compared / 3);
});

test("another organization's corpus is refused, whatever the filter", async () => {
  const bCorpus = sql<{ corpus_id: string }>(k, "SELECT corpus_id FROM documents WHERE org_id = ? AND corpus_id != ? LIMIT 1", b.orgId, corpusId)[0]!.corpus_id;
  expect((await a.api("GET", `/v1/doc/q?corpusId=${bCorpus}&tags=a&status=AWAITING_UPLOAD`)).status).toBe(403);
});
