/**
 * DELETE /v1/corpus/{id} of a big corpus with sessions bound to it, against a real server, while
 * a second client pings `/pub/ping` and another organization's `GET /v1/corpus/{id}` every 10 ms.
 * A ping waits as long as the event loop is held, so the worst ping is the longest hold. Reports
 * the request's latency and the worst pings during it, then the background work (documents and
 * sessions marked: corpus drops; chunks marked: chunk drops; vectors dropped: vector drops), how
 * long it takes and the worst pings meanwhile.
 *
 * Baselines in the same run, in-process with the server stopped, on a twin corpus of as many
 * documents (no chunks: the transaction no longer touches them) and sessions in the same
 * database: the deletion transaction as the previous version ran it (documents and sessions
 * marked, one usage event each; timed, rolled back) against this version's, and this version's
 * background turns on the twin (each one transaction: the longest is the event-loop hold).
 * For scale, the worst ping while another organization ingests 10 small documents before the
 * delete (nothing else runs during the delete and its background work).
 *
 *   bun scripts/bench-corpus-delete.ts [documents=10000] [chunksPerDocument=10] [sessions=documents*0.36]
 *
 * chunksPerDocument 0 seeds no chunks and no vectors (minutes faster at 50,000 documents): the
 * transaction and the turns that mark documents and sessions do not depend on them.
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
import { corpusService } from "../src/corpus/service.ts";
import { dropCorpusTurn } from "../src/corpus/drops.ts";
import { recordUsage } from "../src/usage/record.ts";
import { CORPUS_MARKS } from "../src/corpus/marks.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";
import { PREVIOUS_CORPUS_CASCADE } from "./lib/corpus-delete-previous.ts";

const DOCS = Number(process.argv[2] ?? 10_000);
const PER = Number(process.argv[3] ?? 10);
const SESSIONS = Number(process.argv[4] ?? Math.round(DOCS * 0.36));
const USERS = 20;
const DIMS = 384;

const rnd = mulberry32(7);
const vector = () => {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = rnd() - 0.5;
  return v;
};

// 1. Organizations and corpora through the server.
let k = await startKbqa({ keepData: true, env: { RUST_LOG: "error" } });
const dataDir = k.dataDir;
const A = await k.org("big");
const B = await k.org("other");
const corpus = async (org: typeof A, name: string) => (await org.api("POST", "/v1/corpus/", { name })).body.id as string;
const doomed = await corpus(A, "doomed");
const twin = await corpus(A, "twin");
const kept = await corpus(A, "kept");
const bCorpus = await corpus(B, "b");
await k.stop();

// 2. The doomed corpus: DOCS × PER chunks written as ingestion writes them (insertChunkSets,
// LanceDB adds); the twin: DOCS documents without chunks. SESSIONS sessions bound to each (a
// tenth also to the kept corpus, listed first), documents and sessions spread over USERS users,
// with their "created" usage events.
const db = openDb(dataDir);
const lance = await openLanceIndex(join(dataDir, "lance"), BUILTIN_EMBED_ID, DIMS);
const t0 = performance.now();
const insDoc = db.prepare(`INSERT INTO documents (id, org_id, corpus_id, filename, filename_lc, content_type, status, size, user_id, created_at, updated_at, blob_key, generation)
  VALUES (?, ?, ?, ?, ?, 'text/markdown', 'READY', ?, ?, ?, ?, ?, 1)`);
for (const c of [doomed, twin]) {
  for (let d0 = 0; d0 < DOCS; d0 += 500) {
    const sets: Parameters<typeof insertChunkSets>[1] = [];
    const records: import("../src/store/vector.ts").VectorRecord[] = [];
    db.transaction(() => {
      for (let d = d0; d < Math.min(DOCS, d0 + 500); d++) {
        const doc = crypto.randomUUID();
        const size = 1000 + Math.floor(rnd() * 100_000);
        const user = `user-${d % USERS}`;
        insDoc.run(doc, A.orgId, c, `d${d}.md`, `d${d}.md`, size, user, d, d, `b/${doc}`);
        recordUsage(db, A.orgId, { metric: "storage", op: "created", amount: size, at: d, userId: user, corpusId: c, source: "document" });
        if (c !== doomed || PER === 0) continue;
        const chunks = Array.from({ length: PER }, (_, i) => ({ id: orderedId(), seq: i, pages: i ? [1 + (i >> 2)] : [], hash: `h${d}-${i}`, metadata: { kind: i ? "chunk" : "summary" }, body: `chunk ${i} of ${d}` }));
        sets.push({ set: { orgId: A.orgId, corpusId: c, documentId: doc, generation: 1, createdAt: d }, chunks });
        for (const ch of chunks) records.push({ chunkId: ch.id, orgId: A.orgId, corpusId: c, documentId: doc, generation: 1, text: ch.body, vector: vector() });
      }
      if (sets.length) insertChunkSets(db, sets);
    }).immediate();
    if (records.length) await lance.add(records);
  }
  db.transaction(() => {
    const insS = db.prepare("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at) VALUES (?, ?, ?, '{}', ?, ?)");
    const bind = db.prepare("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, ?)");
    for (let i = 0; i < SESSIONS; i++) {
      const id = crypto.randomUUID();
      const user = `user-${i % USERS}`;
      insS.run(id, A.orgId, user, i, i);
      const both = i % 10 === 0;
      if (both) bind.run(id, A.orgId, kept, 0);
      bind.run(id, A.orgId, c, both ? 1 : 0);
      recordUsage(db, A.orgId, { metric: "sessions", op: "created", amount: 1, at: i, userId: user, corpusId: both ? kept : c });
    }
  }).immediate();
}
await lance.optimize();
await lance.close();
console.log(`seeded: ${DOCS} documents × ${PER} chunks and ${SESSIONS} sessions in the doomed corpus, ${DOCS} documents and ${SESSIONS} sessions in its twin, in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

// 3. Baselines on the twin corpus: the previous deletion transaction against this one (rolled back), then this version's turns for real.
const corpora = corpusService(db, { now: () => 1_000 });
const timedRollback = (fn: () => void) => {
  db.exec("BEGIN IMMEDIATE");
  const t = performance.now();
  fn();
  const ms = performance.now() - t;
  db.exec("ROLLBACK");
  return ms;
};
const oldTx = timedRollback(() => {
  db.query("UPDATE corpora SET deleted_at = 1000 WHERE id = ?").run(twin);
  for (const sql of PREVIOUS_CORPUS_CASCADE) db.query(sql).run({ now: 1000, org: A.orgId, corpus: twin });
  recordUsage(db, A.orgId, { metric: "corpora", op: "removed", amount: 1, at: 1000, userId: "user-1", corpusId: twin });
});
// remove() opens its own transaction; bun:sqlite nests it as a savepoint of this one.
const newTx = timedRollback(() => corpora.remove(A.orgId, "user-1", twin));
let t = performance.now();
corpora.remove(A.orgId, "user-1", twin);
const newTxCommitted = performance.now() - t;
const turns: number[] = [];
t = performance.now();
for (let more = true; more; ) {
  const s = performance.now();
  more = dropCorpusTurn(db, CORPUS_MARKS).more;
  turns.push(performance.now() - s);
}
const turnsTotal = performance.now() - t;
db.close();
const sorted = [...turns].sort((a, b) => a - b);
console.log(`baseline, twin corpus (${DOCS} documents, ${SESSIONS} sessions), in-process: previous deletion transaction ${oldTx.toFixed(0)} ms; ` +
  `this version's ${newTx.toFixed(1)} ms (committed: ${newTxCommitted.toFixed(1)} ms), then ${turns.length} background turns, ` +
  `median ${sorted[sorted.length >> 1]!.toFixed(1)} ms, 95th percentile ${sorted[Math.floor(sorted.length * 0.95)]!.toFixed(1)} ms, longest ${sorted.at(-1)!.toFixed(1)} ms, ${(turnsTotal / 1000).toFixed(1)} s in all`);

// 4. The real thing over HTTP, with pingers.
k = await startKbqa({ dataDir, keepData: true, env: { RUST_LOG: "error" } });
const jwtA = await A.jwt({}, { expSeconds: 3600 });
const jwtB = await B.jwt({}, { expSeconds: 3600 });
await (await fetch(`${k.url}/v1/corpus/${bCorpus}`, { headers: { authorization: `Bearer ${jwtB}` } })).text();
const ro = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
const n = (sql: string, ...args: string[]) => (ro.query(sql).get(...args) as { n: number }).n;
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
const done = { marked: 0, chunks: 0, vectors: 0 };
while (!done.marked || !done.chunks || !done.vectors) {
  const now = performance.now() - t;
  if (!done.marked && n("SELECT count(*) AS n FROM corpus_drops") === 0) done.marked = now;
  if (done.marked && !done.chunks && n("SELECT count(*) AS n FROM chunk_drops") === 0 &&
    n("SELECT count(*) AS n FROM chunks WHERE corpus_id = ? AND deleted_at IS NULL", doomed) === 0) done.chunks = now;
  if (done.marked && !done.vectors && n("SELECT count(*) AS n FROM vector_drops") === 0) done.vectors = now;
  if (now > 3_600_000) break;
  await Bun.sleep(100);
}
stop = true;
await Promise.all(pings);
const s = (ms: number) => (ms / 1000).toFixed(1);
console.log(`DELETE /v1/corpus (${DOCS} documents, ${DOCS * PER} chunks, ${SESSIONS} sessions): ${r.status} in ${reqMs.toFixed(0)} ms; ` +
  `worst /pub/ping ${during.ping.toFixed(0)} ms, other organization ${during.other.toFixed(0)} ms during the request`);
console.log(`background: documents and sessions marked after ${s(done.marked)} s, chunks after ${s(done.chunks)} s, vectors dropped after ${s(done.vectors)} s; ` +
  `worst /pub/ping ${worst.ping.toFixed(0)} ms, other organization ${worst.other.toFixed(0)} ms from then until all were done`);
console.log(`for scale, another organization ingesting 10 documents before the delete: ${s(ingestBefore)} s, worst /pub/ping meanwhile ${duringIngest.ping.toFixed(0)} ms`);
ro.close();
await k.stop();
rmSync(dataDir, { recursive: true, force: true });
