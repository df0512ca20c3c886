/**
 * Document searches (sorts, deep pages, filename prefixes, status/tags/lang filters with each sort)
 * and the chunk hash search over a big corpus, over real HTTP: p50/p99 of sequential requests, and the worst `/pub/ping` answered
 * by a second client pinging every 10 ms meanwhile (how long the event loop was held).
 *
 * Baseline in the same run, on the same database, in-process: the statements as the previous
 * version ran them (its query plans: the corpus index and a sort for the sorted searches, LIKE
 * alone for a prefix, the planner's own choice for the hash search; for the status, tags and lang
 * filters, scripts/lib/document-search-previous.ts: every live document of the corpus tested).
 * Every filtered answer over HTTP (total and the page's ids) is checked against the previous
 * statements' ordered matches; the script fails on a difference.
 *
 * Then the cost of documents-009's triggers on writes, with the triggers and with them dropped:
 * the service's own statements (init's insert, commit's and ingestion's status changes, a PATCH
 * of tags, a delete) in-process, and init, PATCH and DELETE over HTTP.
 *
 * Rows are written straight into SQLite as ingestion writes them (insertChunkSets).
 *
 *   bun scripts/bench-listings.ts [documents=50000] [chunksPerDocument=10] [requests=20]
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa } from "../test/helpers/server.ts";
import { orderedId } from "../src/store/ids.ts";
import { insertChunkSets } from "../src/chunks/bulk.ts";
import { documentSearchSql, type DocFilter } from "../src/documents/search.ts";
import { hashCandidatesSql } from "../src/chunks/query.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";
import { watchPings } from "./lib/ping-watch.ts";
import { DROP_TRIGGERS_009, previousDocumentSearchSql, TRIGGERS_009 } from "./lib/document-search-previous.ts";

const DOCS = Number(process.argv[2] ?? 50_000);
const PER = Number(process.argv[3] ?? 10);
const N = Number(process.argv[4] ?? 20);

const rnd = mulberry32(11);
const int = (n: number) => Math.floor(rnd() * n);
const WORDS = ["report", "memo", "Policy", "guide", "notes", "spec"];
// A second stream for the filter columns, so the columns drawn before them stay as they were.
const rnd2 = mulberry32(12);
const pick = <T>(xs: [T, number][]) => {
  let x = rnd2();
  for (const [v, p] of xs) if ((x -= p) < 0) return v;
  return xs[xs.length - 1]![0];
};
const STATUS: [string, number][] = [["READY", 0.85], ["FAILED", 0.08], ["PROCESSING", 0.05], ["AWAITING_UPLOAD", 0.02]];
const LANG: [string, number][] = [["en", 0.6], ["fr", 0.25], ["de", 0.15]];

const k = await startKbqa();
const org = await k.org("bench");
const corpusId = (await org.api("POST", "/v1/corpus/", { name: "bench" })).body.id as string;
const jwt = await org.jwt({}, { expSeconds: 7200 });

const db = new Database(join(k.dataDir, "kbqa.sqlite"), { strict: true });
db.exec("PRAGMA busy_timeout = 10000");
db.exec("PRAGMA cache_size = -65536"); // the server's (store/db.ts), for the write costs
const insDoc = db.query(
  `INSERT INTO documents (id, org_id, corpus_id, filename, filename_lc, content_type, status, size, user_id, lang, metadata, tags, summary,
     created_at, updated_at, blob_key, generation)
   VALUES (?, ?, ?, ?, ?, 'text/markdown', ?, ?, 'user-1', ?, ?, ?, ?, ?, ?, ?, 1)`,
);
const t0 = performance.now();
for (let d0 = 0; d0 < DOCS; d0 += 500) {
  const sets: Parameters<typeof insertChunkSets>[1] = [];
  db.transaction(() => {
    for (let d = d0; d < Math.min(DOCS, d0 + 500); d++) {
      const id = crypto.randomUUID();
      const name = `${WORDS[int(WORDS.length)]}-${String(d).padStart(6, "0")}-${int(1e6).toString(36)}.md`;
      const size = 1000 + int(1e6);
      const tags = ["a", "b"].filter(() => rnd() < 0.3);
      if (rnd2() < 0.01) tags.push("rare, \"odd\" ü");
      insDoc.run(id, org.orgId, corpusId, name, name.toLowerCase(), pick(STATUS), size, pick(LANG), JSON.stringify({ n: d }), JSON.stringify(tags),
        "summary ".repeat(60), d * 1000, d * 1000 + int(86_400_000), `b/${id}`);
      sets.push({
        set: { orgId: org.orgId, corpusId, documentId: id, generation: 1, createdAt: d },
        chunks: Array.from({ length: PER }, (_, i) => ({ id: orderedId(), seq: i, pages: i ? [1 + (i >> 2)] : [], hash: `h${d}-${i}`, metadata: { kind: i ? "chunk" : "summary" }, body: `chunk ${i} of ${d}` })),
      });
    }
    insertChunkSets(db, sets);
  }).immediate();
}
console.log(`seeded ${DOCS} documents, ${DOCS * PER} chunks in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

const deep = Math.floor(DOCS / 25 * 0.75); // a page three quarters of the way down
const deepOf = (share: number) => Math.floor(((DOCS * share) / 25) * 0.75);
const rare = encodeURIComponent('rare, "odd" ü');
const SHAPES: { name: string; path: string; f?: DocFilter; pageIndex?: number; hash?: string; filtered?: boolean; list?: boolean }[] = [
  { name: "default order (baseline: unchanged)", path: "", f: { corpusId } },
  { name: "UPDATED_AT", path: "&sort=UPDATED_AT", f: { corpusId, sort: "UPDATED_AT" } },
  { name: `UPDATED_AT, page ${deep}`, path: `&sort=UPDATED_AT&pageIndex=${deep}`, f: { corpusId, sort: "UPDATED_AT" }, pageIndex: deep },
  { name: "SIZE", path: "&sort=SIZE", f: { corpusId, sort: "SIZE" } },
  { name: `SIZE DESC, page ${deep}`, path: `&sort=SIZE&order=DESC&pageIndex=${deep}`, f: { corpusId, sort: "SIZE", order: "DESC" }, pageIndex: deep },
  { name: `FILENAME, page ${deep}`, path: `&sort=FILENAME&pageIndex=${deep}`, f: { corpusId, sort: "FILENAME" }, pageIndex: deep },
  { name: "q=report (1/6 of the corpus)", path: "&q=report", f: { corpusId, q: "report" } },
  { name: "q=report-0123* (a few)", path: "&q=report-0123*", f: { corpusId, q: "report-0123*" } },
  { name: "q=zzz (none)", path: "&q=zzz", f: { corpusId, q: "zzz" } },
  { name: "chunk hash=h777-3", path: "", hash: `h${Math.min(777, DOCS - 1)}-3` },
  ...([
    ["`GET /v1/doc/?status=READY` (85 %)", "&status=READY", { status: ["READY"] }, 0, true],
    ["`status=READY&sort=UPDATED_AT`, deep page", "&status=READY&sort=UPDATED_AT", { status: ["READY"], sort: "UPDATED_AT" }, deepOf(0.85)],
    ["`status=FAILED&sort=FILENAME` (8 %)", "&status=FAILED&sort=FILENAME", { status: ["FAILED"], sort: "FILENAME" }, 0],
    ["`status=PROCESSING&status=FAILED&sort=SIZE&order=DESC` (13 %), deep page", "&status=PROCESSING&status=FAILED&sort=SIZE&order=DESC", { status: ["PROCESSING", "FAILED"], sort: "SIZE", order: "DESC" }, deepOf(0.13)],
    ["`GET /v1/doc/?tags=a` (30 %)", "&tags=a", { tags: ["a"] }, 0, true],
    ["`tags=a&sort=SIZE`, deep page", "&tags=a&sort=SIZE", { tags: ["a"], sort: "SIZE" }, deepOf(0.3)],
    ["`tags=a&tags=b&sort=UPDATED_AT` (ANY, 51 %), deep page", "&tags=a&tags=b&sort=UPDATED_AT", { tags: ["a", "b"], sort: "UPDATED_AT" }, deepOf(0.51)],
    ["`tags=a&tags=b&tagsMatch=ALL` (9 %)", "&tags=a&tags=b&tagsMatch=ALL", { tags: ["a", "b"], tagsMatch: "ALL" }, 0],
    ["`tags=rare, \"odd\" ü` (1 %)", `&tags=${rare}`, { tags: ['rare, "odd" ü'] }, 0],
    ["`lang=fr&sort=FILENAME&order=DESC` (25 %), deep page", "&lang=fr&sort=FILENAME&order=DESC", { lang: "fr", sort: "FILENAME", order: "DESC" }, deepOf(0.25)],
    ["`lang=en&status=FAILED` (5 %)", "&lang=en&status=FAILED", { lang: "en", status: ["FAILED"] }, 0],
  ] as [string, string, Omit<DocFilter, "corpusId">, number, boolean?][]).map(([name, path, f, pageIndex, list]) => ({
    name, path: `${path}&pageIndex=${pageIndex}`, f: { corpusId, ...f }, pageIndex, filtered: true, list,
  })),
];

/** The previous version's statements: the corpus index and a sort; LIKE alone; the planner's choice for a hash. */
function previous(s: (typeof SHAPES)[0]): () => unknown {
  if (s.hash) {
    const sql = hashCandidatesSql(["c.hash = $hash"], false).replace(" INDEXED BY chunks_hash", "");
    return () => db.query(sql).all({ org: org.orgId, hash: s.hash! });
  }
  if (s.filtered) {
    const q = previousDocumentSearchSql(org.orgId, s.f!, { pageSize: 25, pageIndex: s.pageIndex ?? 0 });
    return () => [db.query(q.count).get(q.params as never), db.query(q.page).all(q.pageParams as never)];
  }
  const q = documentSearchSql(org.orgId, s.f!, { pageSize: 25, pageIndex: s.pageIndex ?? 0 });
  const old = (x: string) =>
    x.replace(" AND filename_lc >= $lo AND filename_lc < $hi", "").replace("FROM documents WHERE", "FROM documents INDEXED BY documents_corpus WHERE");
  const strip = (p: Record<string, unknown>) => Object.fromEntries(Object.entries(p).filter(([key]) => key !== "lo" && key !== "hi"));
  return () => [db.query(old(q.count)).get(strip(q.params) as never), db.query(old(q.page)).all(strip(q.pageParams) as never)];
}

/**
 * The previous statements' answer: their count, and the page sliced from their whole ordered
 * list (their own OFFSET miscounted documents holding two of the tags of an ANY filter).
 */
function expectPrevious(s: (typeof SHAPES)[0], got: { total: number; items: { id: string }[] }) {
  const q = previousDocumentSearchSql(org.orgId, s.f!, { pageSize: 25, pageIndex: s.pageIndex ?? 0 });
  const total = (db.query(q.count).get(q.params as never) as { n: number }).n;
  const off = (s.pageIndex ?? 0) * 25;
  const ids = (db.query(q.page.replace(" LIMIT $limit OFFSET $offset", "")).all(q.params as never) as { id: string }[]).slice(off, off + 25).map((r) => r.id);
  const same = got.total === total && JSON.stringify(got.items.map((d) => d.id)) === JSON.stringify(ids);
  if (!same) throw new Error(`${s.name}: the answer differs from the previous statements' (total ${got.total} vs ${total})`);
  matches.set(s.name, total);
}
const matches = new Map<string, number>();

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const headers = { authorization: `Bearer ${jwt}` };
console.log(`| request | p50 / p99 ms | worst ping ms | previous statements in-process, p50 ms |`);
console.log(`|---|---|---|---|`);
for (const s of SHAPES) {
  const path = s.hash ? `/v1/chunk/q?hash=${s.hash}` : `/v1/doc/${s.list ? "" : "q"}?corpusId=${corpusId}${s.path}`;
  // The answer is checked before the pings start: reading the previous statements' whole list
  // holds this process, the pinging client's, for up to a second.
  if (s.filtered) {
    const r = await fetch(k.url + path, { headers });
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    expectPrevious(s, (await r.json()) as { total: number; items: { id: string }[] });
  }
  const ms: number[] = [];
  const pings = watchPings(`${k.url}/pub/ping`);
  for (let i = 0; i < N + 2; i++) {
    const t = performance.now();
    const r = await fetch(k.url + path, { headers });
    await r.text();
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    if (i >= 2) ms.push(performance.now() - t);
  }
  const worst = await pings.stop();
  const run = previous(s);
  const base: number[] = [];
  for (let i = 0; i < Math.min(N, 10) + 1; i++) {
    const t = performance.now();
    run();
    if (i) base.push(performance.now() - t);
  }
  const m = matches.has(s.name) ? ` (${matches.get(s.name)} matches${s.pageIndex ? `, page ${s.pageIndex}` : ""})` : "";
  console.log(`| ${s.name}${m} | ${pct(ms, 50).toFixed(1)} / ${pct(ms, 99).toFixed(1)} | ${worst.toFixed(0)} | ${pct(base, 50).toFixed(1)} |`);
}

// Write cost of the triggers. In-process, the service's own statements over W new documents of
// the same corpus (the 50,000 stay), each kind in one transaction: what the triggers add to the
// statement itself, without the commit. Over HTTP, init, PATCH and DELETE as a client sees them.
const W = Math.max(200, N * 20);
function writes(): Record<string, number> {
  const ids = Array.from({ length: W }, () => crypto.randomUUID());
  const out: Record<string, number> = {};
  const time = (name: string, f: (id: string, i: number) => void) => {
    const t = performance.now();
    db.transaction(() => ids.forEach(f)).immediate();
    out[name] = ((performance.now() - t) * 1000) / W;
  };
  const now = Date.now();
  time("init (insert, two tags)", (id) =>
    db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, filename_lc, content_type, status, nb_pages, user_id, provider, lang,
        metadata, tags, chunk, doc_create, doc_update, created_at, updated_at, blob_key, generation)
        VALUES (?, ?, ?, 'w.md', 'w.md', 'text/markdown', 'AWAITING_UPLOAD', 0, 'user-1', NULL, NULL, '{}', '["a","team/ops"]', NULL, NULL, NULL, ?, ?, ?, 0)`)
      .run(id, org.orgId, corpusId, now, now, `b/${id}`));
  time("commit (status PROCESSING, size, updated_at)", (id, i) =>
    db.query(`UPDATE documents SET status = 'PROCESSING', status_msg = NULL, size = ?, content_hash = ?, stage = NULL, stage_done = NULL,
      stage_total = NULL, updated_at = ? WHERE org_id = ? AND id = ?`).run(1000 + i, `h${i}`, now + 1, org.orgId, id));
  time("ingestion done (READY, lang, updated_at)", (id) =>
    db.query(`UPDATE documents SET status = 'READY', status_msg = NULL, tokens = 1, nb_words = 1, nb_pages = 1, lang = 'en',
      summary = 's', stage = NULL, stage_done = NULL, stage_total = NULL, updated_at = ? WHERE org_id = ? AND id = ?`).run(now + 2, org.orgId, id));
  time("PATCH (tags, updated_at)", (id) =>
    db.query(`UPDATE documents SET filename = 'w.md', filename_lc = 'w.md', doc_create = NULL, doc_update = NULL, metadata = '{}', tags = '["b"]', chunk = NULL, updated_at = ?
      WHERE org_id = ? AND id = ?`).run(now + 3, org.orgId, id));
  time("delete", (id) => db.query("UPDATE documents SET deleted_at = ? WHERE org_id = ? AND id = ?").run(now + 4, org.orgId, id));
  return out;
}
async function httpWrites(): Promise<Record<string, number>> {
  const ms: Record<string, number[]> = { "POST /v1/doc/init (two tags)": [], "PATCH /v1/doc/{id} (tags)": [], "DELETE /v1/doc/{id}": [] };
  const json = { ...headers, "content-type": "application/json" };
  const timed = async (name: string, i: number, url: string, init: RequestInit) => {
    const t = performance.now();
    const r = await fetch(url, init);
    const body = await r.json();
    if (r.status !== 200) throw new Error(`${name}: ${r.status}`);
    if (i >= 2) ms[name]!.push(performance.now() - t);
    return body;
  };
  for (let i = 0; i < N * 5 + 2; i++) {
    const made = await timed("POST /v1/doc/init (two tags)", i, `${k.url}/v1/doc/init`, { method: "POST", headers: json, body: JSON.stringify({ corpusId, filename: "p.md", contentType: "text/markdown", tags: ["a", "team/ops"] }) });
    const id = made.document.id as string;
    await timed("PATCH /v1/doc/{id} (tags)", i, `${k.url}/v1/doc/${id}`, { method: "PATCH", headers: json, body: JSON.stringify({ tags: ["b"] }) });
    await timed("DELETE /v1/doc/{id}", i, `${k.url}/v1/doc/${id}`, { method: "DELETE", headers });
  }
  return Object.fromEntries(Object.entries(ms).map(([name, xs]) => [name, pct(xs, 50) * 1000]));
}
// Alternated, best of two each, so neither side pays for a warm-up or a busy moment alone.
const best = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(Object.keys(a).map((key) => [key, Math.min(a[key]!, b[key]!)]));
let withTriggers = { ...writes(), ...(await httpWrites()) };
db.exec(DROP_TRIGGERS_009);
let without = { ...writes(), ...(await httpWrites()) };
db.exec(TRIGGERS_009.join("\n"));
withTriggers = best(withTriggers, { ...writes(), ...(await httpWrites()) });
db.exec(DROP_TRIGGERS_009);
without = best(without, { ...writes(), ...(await httpWrites()) });
db.exec(TRIGGERS_009.join("\n"));
console.log(`\n| write: in-process, ${W} statements in one transaction (µs each); over HTTP, p50 of ${N * 5} (µs) | with the triggers | without |`);
console.log(`|---|---|---|`);
for (const name of Object.keys(withTriggers)) console.log(`| ${name} | ${withTriggers[name]!.toFixed(0)} | ${without[name]!.toFixed(0)} |`);
db.close();
await k.stop();
