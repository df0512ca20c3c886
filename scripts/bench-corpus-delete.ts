/**
 * DELETE /v1/corpus/{id} of a big corpus against a real server, with a second client pinging
 * `/pub/ping` and another organization's `GET /v1/corpus/{id}` every 10 ms: the request's
 * latency, the worst ping while the request and its background work (chunk drops, vector drops)
 * run, and how long that background work takes.
 *
 * Baselines in the same run, on a twin corpus of the same size in the same database and table,
 * with the server stopped: the previous cascade (the chunks marked deleted inside the deletion
 * transaction: timed, rolled back) and the previous vector drops (one LanceDB delete per document,
 * timed over SAMPLE documents, against one grouped delete of as many other documents). Also the
 * time another organization needs to ingest 10 small documents, before the delete and right
 * after it (its vectors go through the same LanceDB write queue as the drops).
 *
 *   bun scripts/bench-corpus-delete.ts [documents=10000] [chunksPerDocument=20]
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { startKbqa } from "../test/helpers/server.ts";
import { openDb } from "../src/store/db.ts";
import { orderedId } from "../src/store/ids.ts";
import { insertChunkSets } from "../src/chunks/bulk.ts";
import { openLanceIndex } from "../src/store/lance.ts";
import { BUILTIN_EMBED_ID } from "../src/models/builtin-embed.ts";
import { CORPUS_CASCADE } from "../src/corpus/service.ts";
import "../src/documents/service.ts"; // the documents' part of the cascade

const DOCS = Number(process.argv[2] ?? 10_000);
const PER = Number(process.argv[3] ?? 20);
const SAMPLE = 200;
const DIMS = 384;

let seed = 7;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const vector = () => {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = rnd() - 0.5;
  return v;
};

// 1. Organizations and corpora through the server.
let k = await startKbqa({ keepData: true });
const dataDir = k.dataDir;
const A = await k.org("big");
const B = await k.org("other");
const corpus = async (org: typeof A, name: string) => (await org.api("POST", "/v1/corpus/", { name })).body.id as string;
const doomed = await corpus(A, "doomed");
const twin = await corpus(A, "twin");
const bCorpus = await corpus(B, "b");
await k.stop();

// 2. Two corpora of DOCS × PER chunks, written as ingestion writes them (insertChunkSets, LanceDB adds).
const db = openDb(dataDir);
let lance = await openLanceIndex(join(dataDir, "lance"), BUILTIN_EMBED_ID, DIMS);
const docsOf: Record<string, string[]> = { [doomed]: [], [twin]: [] };
const t0 = performance.now();
for (const c of [doomed, twin]) {
  for (let d0 = 0; d0 < DOCS; d0 += 500) {
    const sets: Parameters<typeof insertChunkSets>[1] = [];
    const records: import("../src/store/vector.ts").VectorRecord[] = [];
    db.transaction(() => {
      for (let d = d0; d < Math.min(DOCS, d0 + 500); d++) {
        const doc = crypto.randomUUID();
        docsOf[c]!.push(doc);
        db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, filename_lc, content_type, status, size, user_id, created_at, updated_at, blob_key, generation)
          VALUES (?, ?, ?, ?, ?, 'text/markdown', 'READY', 1000, 'user-1', ?, ?, ?, 1)`).run(doc, A.orgId, c, `d${d}.md`, `d${d}.md`, d, d, `b/${doc}`);
        const chunks = Array.from({ length: PER }, (_, i) => ({ id: orderedId(), seq: i, pages: i ? [1 + (i >> 2)] : [], hash: `h${d}-${i}`, metadata: { kind: i ? "chunk" : "summary" }, body: `chunk ${i} of ${d}` }));
        sets.push({ set: { orgId: A.orgId, corpusId: c, documentId: doc, generation: 1, createdAt: d }, chunks });
        for (const ch of chunks) records.push({ chunkId: ch.id, orgId: A.orgId, corpusId: c, documentId: doc, generation: 1, text: ch.body, vector: vector() });
      }
      insertChunkSets(db, sets);
    }).immediate();
    await lance.add(records);
  }
}
await lance.optimize();
console.log(`seeded 2 × ${DOCS} documents × ${PER} chunks in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

// 3. Baselines on the twin corpus.
const OLD_CHUNKS = "UPDATE chunks SET deleted_at = $now WHERE org_id = $org AND corpus_id = $corpus AND deleted_at IS NULL";
const cascade = (withOldChunks: boolean) => {
  db.exec("BEGIN IMMEDIATE");
  const t = performance.now();
  db.query("UPDATE corpora SET deleted_at = 1 WHERE id = ?").run(twin);
  for (const sql of CORPUS_CASCADE) db.query(sql).run({ now: 1, org: A.orgId, corpus: twin });
  if (withOldChunks) db.query(OLD_CHUNKS).run({ now: 1, org: A.orgId, corpus: twin });
  const ms = performance.now() - t;
  db.exec("ROLLBACK");
  return ms;
};
const oldTx = cascade(true);
const newTx = cascade(false);
const tw = docsOf[twin]!;
let t = performance.now();
for (const d of tw.slice(0, SAMPLE)) await lance.deleteDocument(A.orgId, d);
const perDoc = (performance.now() - t) / SAMPLE;
t = performance.now();
await lance.deleteDocuments(A.orgId, tw.slice(SAMPLE, 2 * SAMPLE));
const grouped = (performance.now() - t) / SAMPLE;
await lance.close();
db.close();
console.log(`baseline, twin corpus (${DOCS * PER} chunks): deletion transaction with the chunks marked inside it ${oldTx.toFixed(0)} ms, ` +
  `without (this version) ${newTx.toFixed(0)} ms`);
console.log(`baseline, LanceDB drops: one delete per document ${perDoc.toFixed(1)} ms per document ` +
  `(${((perDoc * DOCS) / 1000).toFixed(0)} s for the corpus, write queue held), grouped ${grouped.toFixed(2)} ms per document`);

// 4. The real thing over HTTP, with pingers.
k = await startKbqa({ dataDir, keepData: true });
const jwtA = await A.jwt({}, { expSeconds: 3600 });
const jwtB = await B.jwt({}, { expSeconds: 3600 });
await (await fetch(`${k.url}/v1/corpus/${bCorpus}`, { headers: { authorization: `Bearer ${jwtB}` } })).text();
const ro = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
const left = (table: string) => (ro.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
let stop = false;
const worst = { ping: 0, other: 0 };
const pinger = async (key: keyof typeof worst, url: string, headers: Record<string, string> = {}) => {
  while (!stop) {
    const s = performance.now();
    await (await fetch(url, { headers })).text();
    worst[key] = Math.max(worst[key], performance.now() - s);
    await Bun.sleep(10);
  }
};
/** Another organization's 10 small markdown documents, uploaded 5 at a time: ms until all are READY. */
const ingestB = async (tag: string) => {
  const t = performance.now();
  const one = async (i: number) => {
    const api = async (method: string, path: string, body?: unknown) =>
      (await fetch(k.url + path, { method, headers: { authorization: `Bearer ${jwtB}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined })).json() as Promise<any>;
    const init = await api("POST", "/v1/doc/init", { corpusId: bCorpus, filename: `${tag}-${i}.md`, contentType: "text/markdown" });
    await (await fetch(init.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body: `# ${tag} ${i}\n\n` + "Some text to index. ".repeat(50) })).text();
    await api("POST", `/v1/doc/${init.document.id}/commit`);
    while ((await api("GET", `/v1/doc/${init.document.id}/status`)).status === "PROCESSING") await Bun.sleep(50);
  };
  for (let i = 0; i < 10; i += 5) await Promise.all([0, 1, 2, 3, 4].map((j) => one(i + j)));
  return performance.now() - t;
};
const pings = [pinger("ping", `${k.url}/pub/ping`), pinger("other", `${k.url}/v1/corpus/${bCorpus}`, { authorization: `Bearer ${jwtB}` })];
await Bun.sleep(200);
await ingestB("warm-up");
Object.assign(worst, { ping: 0, other: 0 });
const ingestBefore = await ingestB("before");
const duringIngest = { ...worst };
Object.assign(worst, { ping: 0, other: 0 });
t = performance.now();
const r = await fetch(`${k.url}/v1/corpus/${doomed}`, { method: "DELETE", headers: { authorization: `Bearer ${jwtA}` } });
await r.text();
const reqMs = performance.now() - t;
await Bun.sleep(100); // pings held up by the request complete now and count for it
const during = { ...worst };
Object.assign(worst, { ping: 0, other: 0 });
const ingestAfter = await ingestB("after");
let chunksDone = 0;
let vectorsDone = 0;
const hasTable = (ro.query("SELECT 1 FROM sqlite_master WHERE name = 'chunk_drops'").get() != null);
while (!chunksDone || !vectorsDone) {
  const now = performance.now() - t;
  if (!chunksDone && (!hasTable || left("chunk_drops") === 0) &&
    (ro.query("SELECT count(*) AS n FROM chunks WHERE corpus_id = ? AND deleted_at IS NULL").get(doomed) as { n: number }).n === 0) chunksDone = now;
  if (!vectorsDone && left("vector_drops") === 0) vectorsDone = now;
  if (now > 3_600_000) break;
  await Bun.sleep(100);
}
stop = true;
await Promise.all(pings);
console.log(`DELETE /v1/corpus (${DOCS} documents, ${DOCS * PER} chunks): ${r.status} in ${reqMs.toFixed(0)} ms; ` +
  `worst /pub/ping ${during.ping.toFixed(0)} ms, other organization ${during.other.toFixed(0)} ms during the request`);
console.log(`background: chunks marked after ${(chunksDone / 1000).toFixed(1)} s, vectors dropped after ${(vectorsDone / 1000).toFixed(1)} s; ` +
  `worst /pub/ping ${worst.ping.toFixed(0)} ms, other organization ${worst.other.toFixed(0)} ms from then until both were done`);
console.log(`another organization ingesting 10 documents: ${(ingestBefore / 1000).toFixed(1)} s before the delete (worst /pub/ping meanwhile ${duringIngest.ping.toFixed(0)} ms), ` +
  `${(ingestAfter / 1000).toFixed(1)} s right after it`);
ro.close();
await k.stop();
rmSync(dataDir, { recursive: true, force: true });
