/**
 * Document searches (sorts, deep pages, filename prefixes) and the chunk hash search over a big
 * corpus, over real HTTP: p50/p99 of sequential requests, and the worst `/pub/ping` answered
 * by a second client pinging every 10 ms meanwhile (how long the event loop was held).
 *
 * Baseline in the same run, on the same database, in-process: the statements as the previous
 * version ran them (its query plans: the corpus index and a sort for the sorted searches, LIKE
 * alone for a prefix, the planner's own choice for the hash search).
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

const DOCS = Number(process.argv[2] ?? 50_000);
const PER = Number(process.argv[3] ?? 10);
const N = Number(process.argv[4] ?? 20);

const rnd = mulberry32(11);
const int = (n: number) => Math.floor(rnd() * n);
const WORDS = ["report", "memo", "Policy", "guide", "notes", "spec"];

const k = await startKbqa();
const org = await k.org("bench");
const corpusId = (await org.api("POST", "/v1/corpus/", { name: "bench" })).body.id as string;
const jwt = await org.jwt({}, { expSeconds: 7200 });

const db = new Database(join(k.dataDir, "kbqa.sqlite"), { strict: true });
db.exec("PRAGMA busy_timeout = 10000");
const insDoc = db.query(
  `INSERT INTO documents (id, org_id, corpus_id, filename, filename_lc, content_type, status, size, user_id, lang, metadata, tags, summary,
     created_at, updated_at, blob_key, generation)
   VALUES (?, ?, ?, ?, ?, 'text/markdown', 'READY', ?, 'user-1', 'en', ?, ?, ?, ?, ?, ?, 1)`,
);
const t0 = performance.now();
for (let d0 = 0; d0 < DOCS; d0 += 500) {
  const sets: Parameters<typeof insertChunkSets>[1] = [];
  db.transaction(() => {
    for (let d = d0; d < Math.min(DOCS, d0 + 500); d++) {
      const id = crypto.randomUUID();
      const name = `${WORDS[int(WORDS.length)]}-${String(d).padStart(6, "0")}-${int(1e6).toString(36)}.md`;
      insDoc.run(id, org.orgId, corpusId, name, name.toLowerCase(), 1000 + int(1e6), JSON.stringify({ n: d }), JSON.stringify(["a", "b"].filter(() => rnd() < 0.3)),
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
const SHAPES: { name: string; path: string; f?: DocFilter; pageIndex?: number; hash?: string }[] = [
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
];

/** The previous version's statements: the corpus index and a sort; LIKE alone; the planner's choice for a hash. */
function previous(s: (typeof SHAPES)[0]): () => unknown {
  if (s.hash) {
    const sql = hashCandidatesSql(["c.hash = $hash"], false).replace(" INDEXED BY chunks_hash", "");
    return () => db.query(sql).all({ org: org.orgId, hash: s.hash! });
  }
  const q = documentSearchSql(org.orgId, s.f!, { pageSize: 25, pageIndex: s.pageIndex ?? 0 });
  const old = (x: string) =>
    x.replace(" AND filename_lc >= $lo AND filename_lc < $hi", "").replace("FROM documents WHERE", "FROM documents INDEXED BY documents_corpus WHERE");
  const strip = (p: Record<string, unknown>) => Object.fromEntries(Object.entries(p).filter(([key]) => key !== "lo" && key !== "hi"));
  return () => [db.query(old(q.count)).get(strip(q.params) as never), db.query(old(q.page)).all(strip(q.pageParams) as never)];
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const headers = { authorization: `Bearer ${jwt}` };
console.log(`| request | p50 / p99 ms | worst ping ms | previous statements in-process, p50 ms |`);
console.log(`|---|---|---|---|`);
for (const s of SHAPES) {
  const path = s.hash ? `/v1/chunk/q?hash=${s.hash}` : `/v1/doc/q?corpusId=${corpusId}${s.path}`;
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
  console.log(`| ${s.name} | ${pct(ms, 50).toFixed(1)} / ${pct(ms, 99).toFixed(1)} | ${worst.toFixed(0)} | ${pct(base, 50).toFixed(1)} |`);
}
db.close();
await k.stop();
