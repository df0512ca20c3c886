/**
 * GET /v1/chunk/q with `json` containment over 100,000 chunks (1,000 documents of 100 chunks,
 * varied nested metadata), p50/p99 per fragment shape, sequential requests over real HTTP.
 * Baseline in the same run: the same match as a bare SQLite query (json_extract/json_each scan
 * with the liveness join: count plus one page), in-process, no HTTP, which is what the API would
 * cost without the term index.
 * Rows are written straight into SQLite, one transaction per document like ingestion's commit,
 * so the index triggers run as they do in production; the seeding rate is reported too, and the
 * write cost of the index: 1,000 chunks with ingestion's {kind} metadata inserted (then soft
 * deleted) row by row, through insertChunkSet (src/chunks/bulk.ts) and into a trigger-less copy
 * of the table, interleaved, rolled back.
 * The server keeps what searches read per organization until its chunks or documents change
 * (src/chunks/index-cache.ts), so each shape is also timed right after such a write (the first
 * search after, say, an ingestion commit) and right after an unrelated write.
 * Usage: bun scripts/bench-chunks.ts [requests-per-shape=200]
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa } from "../test/helpers/server.ts";
import { orderedId } from "../src/store/ids.ts";
import { insertChunkSet } from "../src/chunks/bulk.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";

const N = Number(process.argv[2] ?? 200);
const DOCS = 1000;
const PER_DOC = 100;

const k = await startKbqa();
const org = await k.org("bench");
const corpusId = (await org.api("POST", "/v1/corpus/", { name: "bench" })).body.id as string;
const jwt = await org.jwt({}, { expSeconds: 7200 });

const rnd = mulberry32(42);
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const int = (n: number) => Math.floor(rnd() * n);

function metadata(i: number) {
  return {
    kind: i === 0 ? "summary" : "chunk",
    lang: pick(["en", "en", "fr", "de", "es"]),
    section: { title: `S${int(50)}`, level: 1 + int(3) },
    tags: ["a", "b", "c", "d", "e", "f", "g", "h"].filter(() => rnd() < 0.25),
    source: { system: pick(["crm", "wiki", "drive"]), ids: [int(1000), int(1000)] },
    priority: int(10),
    reviewed: rnd() < 0.5,
    authors: [{ name: `u${int(200)}`, role: pick(["editor", "owner"]) }],
  };
}

const db = new Database(join(k.dataDir, "kbqa.sqlite"), { strict: true });
db.exec("PRAGMA busy_timeout = 10000");
const insDoc = db.query(
  `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation)
   VALUES (?, ?, ?, ?, 'text/markdown', 'READY', ?, ?, ?, 1)`,
);
const insChunk = db.query(
  `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, metadata, body, created_at)
   VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
);
const t0 = performance.now();
for (let d = 0; d < DOCS; d++) {
  const docId = crypto.randomUUID();
  db.transaction(() => {
    insDoc.run(docId, org.orgId, corpusId, `doc-${d}.md`, d, d, `bench/${docId}`);
    for (let i = 0; i < PER_DOC; i++) {
      const pages = i === 0 ? [] : [1 + Math.floor(i / 4)];
      insChunk.run(orderedId(), org.orgId, corpusId, docId, i, JSON.stringify(pages), pages[0] ?? 0, `h${int(50_000)}`,
        JSON.stringify(metadata(i)), `chunk ${i} of document ${d}`, Date.now());
    }
  }).immediate();
}
const seedMs = performance.now() - t0;
console.log(`seeded ${DOCS * PER_DOC} chunks in ${(seedMs / 1000).toFixed(1)} s (${((seedMs * 1000) / (DOCS * PER_DOC)).toFixed(0)} µs per chunk, index triggers included)`);
db.exec("ANALYZE");

/** Write cost of the index triggers: 1,000 {kind} chunks into chunks vs a trigger-less copy. */
{
  db.exec("CREATE TEMP TABLE plain AS SELECT * FROM chunks WHERE 0");
  // chunks' own indexes (migrations.ts), so the difference is the triggers' work.
  ["UNIQUE INDEX temp.p0 ON plain(id)", "INDEX temp.p1 ON plain(org_id, deleted_at, document_id, first_page, id)",
    "INDEX temp.p2 ON plain(org_id, document_id, generation)", "INDEX temp.p3 ON plain(org_id, hash)", "INDEX temp.p4 ON plain(doc_seq)",
    "INDEX temp.p5 ON plain(org_id, doc_seq, first_page, id) WHERE deleted_at IS NULL"].forEach((ix) => db.exec(`CREATE ${ix}`));
  const cost: Record<string, { ins: number[]; del: number[] }> = { chunks: { ins: [], del: [] }, plain: { ins: [], del: [] }, bulk: { ins: [], del: [] } };
  for (let r = 0; r < 12; r++) {
    {
      // The same 1,000 rows through insertChunkSet (bulk.ts): one doc_seq lookup, one grouped index statement.
      const docId = crypto.randomUUID();
      const rows = Array.from({ length: 1000 }, (_, i) => ({ id: orderedId(), seq: i, pages: [1 + (i >> 2)], hash: "h", metadata: { kind: i ? "chunk" : "summary" }, body: "text" }));
      db.exec("BEGIN IMMEDIATE");
      let t = performance.now();
      insertChunkSet(db, { orgId: org.orgId, corpusId, documentId: docId, generation: 1, createdAt: 0 }, rows);
      const insMs = performance.now() - t;
      t = performance.now();
      db.query("UPDATE chunks SET deleted_at = 1 WHERE org_id = ? AND document_id = ?").run(org.orgId, docId);
      const delMs = performance.now() - t;
      db.exec("ROLLBACK");
      if (r >= 2) cost.bulk!.ins.push(insMs), cost.bulk!.del.push(delMs);
    }
    for (const table of ["chunks", "plain"]) {
      const ins = db.query(`INSERT INTO ${table} (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, metadata, body, created_at)
        VALUES (?, ?, ?, ?, 1, ?, ?, ?, 'h', ?, 'text', 0)`);
      const docId = crypto.randomUUID();
      db.exec("BEGIN IMMEDIATE");
      let t = performance.now();
      for (let i = 0; i < 1000; i++) ins.run(orderedId(), org.orgId, corpusId, docId, i, `[${1 + (i >> 2)}]`, 1 + (i >> 2), JSON.stringify({ kind: i ? "chunk" : "summary" }));
      const insMs = performance.now() - t;
      t = performance.now();
      db.query(`UPDATE ${table} SET deleted_at = 1 WHERE org_id = ? AND document_id = ?`).run(org.orgId, docId);
      const delMs = performance.now() - t;
      db.exec("ROLLBACK");
      if (r >= 2) cost[table]!.ins.push(insMs), cost[table]!.del.push(delMs);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(1);
  console.log(`write 1,000 {kind} chunks, median of 10: insert ${med(cost.chunks!.ins)} ms (insertChunkSet ${med(cost.bulk!.ins)} ms, trigger-less copy ${med(cost.plain!.ins)} ms), ` +
    `soft delete ${med(cost.chunks!.del)} ms (copy ${med(cost.plain!.del)} ms)`);
  db.exec("DROP TABLE temp.plain");
}

const SHAPES: { name: string; json: unknown; pageIndex?: number; extra?: string }[] = [
  { name: "one key, unselective (99%)", json: { kind: "chunk" } },
  { name: "one key, unselective, pageIndex 3000", json: { kind: "chunk" }, pageIndex: 3000 },
  { name: "one key, selective (1%)", json: { kind: "summary" } },
  { name: "two keys (~40%)", json: { kind: "chunk", lang: "en" } },
  { name: "nested object, selective", json: { section: { title: "S7", level: 2 } } },
  { name: "nested object, unselective (33%)", json: { source: { system: "wiki" } } },
  { name: "array of scalars (~6%)", json: { tags: ["c", "d"] } },
  { name: "array of objects, selective (inexact)", json: { authors: [{ name: "u5", role: "owner" }] } },
  { name: "three keys nested+array+bool", json: { section: { level: 3 }, tags: ["a"], reviewed: true } },
  { name: "no match", json: { kind: "nope" } },
  { name: "page=3 and one key", json: { kind: "chunk" }, extra: "&page=3" },
  { name: "documentId and two keys", json: { kind: "chunk", lang: "en" }, extra: "&documentId=" },
];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms  p99 ${pct(xs, 99).toFixed(2)} ms`;

async function http(path: string): Promise<{ ms: number; total: number }> {
  const t = performance.now();
  const r = await fetch(k.url + path, { headers: { authorization: `Bearer ${jwt}` } });
  const body = (await r.json()) as { total: number };
  const ms = performance.now() - t;
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
  return { ms, total: body.total };
}

/** The bare-SQLite baseline: the fragment's leaves as json_extract / json_each predicates. */
function naiveSql(json: unknown): string {
  const preds: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      for (const e of v) {
        if (e && typeof e === "object") {
          const sub = Object.entries(e).map(([kk, x]) => `json_extract(j.value, '$.${kk}') = ${JSON.stringify(x).replace(/"/g, "'")}`);
          preds.push(`EXISTS (SELECT 1 FROM json_each(c.metadata, '${path}') j WHERE ${sub.join(" AND ")})`);
        } else preds.push(`EXISTS (SELECT 1 FROM json_each(c.metadata, '${path}') j WHERE j.value = ${JSON.stringify(e).replace(/"/g, "'")})`);
      }
    } else if (v && typeof v === "object") for (const [kk, x] of Object.entries(v)) walk(x, `${path}.${kk}`);
    else preds.push(`json_extract(c.metadata, '${path}') = ${typeof v === "boolean" ? (v ? 1 : 0) : JSON.stringify(v).replace(/"/g, "'")}`);
  };
  walk(json, "$");
  return preds.join(" AND ");
}

const ping: number[] = [];
for (let i = 0; i < N; i++) {
  const t = performance.now();
  await (await fetch(`${k.url}/pub/ping`)).text();
  ping.push(performance.now() - t);
}
console.log(`${"HTTP floor (GET /pub/ping)".padEnd(42)} ${fmt(ping)}`);

for (const s of SHAPES) {
  const docId = db.query<{ id: string }, []>("SELECT id FROM documents ORDER BY created_at LIMIT 1 OFFSET 500").get()!.id;
  const extra = s.extra === "&documentId=" ? `${s.extra}${docId}` : (s.extra ?? "");
  const path = `/v1/chunk/q?json=${encodeURIComponent(JSON.stringify(s.json))}&pageIndex=${s.pageIndex ?? 0}${extra}`;
  for (let i = 0; i < 5; i++) await http(path);
  const api: number[] = [];
  let total = 0;
  for (let i = 0; i < N; i++) {
    const r = await http(path);
    api.push(r.ms);
    total = r.total;
  }
  // After a write to this organization's chunks (a document re-marked READY): the search cache
  // starts over, as after an ingestion commit. After a write elsewhere (the organization's name):
  // the cache stays, SQLite's page cache of the server's connection does not.
  const cold: number[] = [];
  const other: number[] = [];
  const bump = db.query("UPDATE documents SET status = 'READY' WHERE id = ?");
  const touch = db.query("UPDATE orgs SET name = ? WHERE id = ?");
  for (let i = 0; i < Math.max(5, N >> 2); i++) {
    bump.run(docId);
    cold.push((await http(path)).ms);
    touch.run(`bench-${i}`, org.orgId);
    other.push((await http(path)).ms);
  }
  const where = [naiveSql(s.json), s.extra === "&page=3" ? "EXISTS (SELECT 1 FROM json_each(c.pages) WHERE value = 3)" : "",
    s.extra === "&documentId=" ? `c.document_id = '${docId}'` : ""].filter(Boolean).join(" AND ");
  const live = `FROM chunks c JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
    WHERE c.org_id = $org AND c.deleted_at IS NULL AND d.deleted_at IS NULL AND d.status = 'READY' AND d.generation = c.generation AND ${where}`;
  const count = db.query<{ n: number }, { org: string }>(`SELECT count(*) AS n ${live}`);
  const page = db.query(`SELECT c.id ${live} ORDER BY c.doc_seq, c.first_page, c.id LIMIT 25 OFFSET ${(s.pageIndex ?? 0) * 25}`);
  const base: number[] = [];
  let baseTotal = 0;
  for (let i = 0; i < Math.max(5, Math.floor(N / 10)); i++) {
    const t = performance.now();
    baseTotal = count.get({ org: org.orgId })!.n;
    page.all({ org: org.orgId });
    base.push(performance.now() - t);
  }
  console.log(`${s.name.padEnd(42)} API ${fmt(api)}  total ${total}  | after a chunk write ${fmt(cold)}  | after another write ${fmt(other)}  | bare SQLite scan ${fmt(base)}  total ${baseTotal}`);
}
db.close();
await k.stop();
