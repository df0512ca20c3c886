/**
 * The chunk hash search over a big corpus, over real HTTP: p50/p99 of sequential requests, and
 * the worst `/pub/ping` answered by a second client pinging every 10 ms meanwhile (how long the
 * event loop was held).
 *
 * Baseline in the same run, on the same database, in-process: the statement as the previous
 * version ran it (the planner's own choice of index).
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
import { hashCandidatesSql } from "../src/chunks/query.ts";

const DOCS = Number(process.argv[2] ?? 50_000);
const PER = Number(process.argv[3] ?? 10);
const N = Number(process.argv[4] ?? 20);

let seed = 11;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
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

const SHAPES: { name: string; hash: string }[] = [
  { name: "chunk hash=h777-3", hash: `h${Math.min(777, DOCS - 1)}-3` },
];

/** The previous version's statement: the planner's choice. */
function previous(s: (typeof SHAPES)[0]): () => unknown {
  const sql = hashCandidatesSql(["c.hash = $hash"], false).replace(" INDEXED BY chunks_hash", "");
  return () => db.query(sql).all({ org: org.orgId, hash: s.hash });
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const headers = { authorization: `Bearer ${jwt}` };
console.log(`| request | p50 / p99 ms | worst ping ms | previous statements in-process, p50 ms |`);
console.log(`|---|---|---|---|`);
for (const s of SHAPES) {
  const path = `/v1/chunk/q?hash=${s.hash}`;
  const ms: number[] = [];
  let worst = 0;
  let stop = false;
  const pinger = (async () => {
    while (!stop) {
      const t = performance.now();
      await (await fetch(`${k.url}/pub/ping`)).text();
      worst = Math.max(worst, performance.now() - t);
      await Bun.sleep(10);
    }
  })();
  for (let i = 0; i < N + 2; i++) {
    const t = performance.now();
    const r = await fetch(k.url + path, { headers });
    await r.text();
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    if (i >= 2) ms.push(performance.now() - t);
  }
  stop = true;
  await pinger;
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
