/**
 * The READY commit of one large document, in process on a real (migrated, WAL) database: the
 * service's commitReadyMany for a document of N chunks, against raw bun:sqlite inserting the same
 * rows (same column values) into a plain table in one transaction; for each, the longest gap an
 * interval timer saw while it ran (what an HTTP request would have waited). A document's rows are
 * one commitReadyMany call, as writeBatch makes it (COMMIT_ROWS groups small documents, never splits one).
 *
 * Usage: bun scripts/bench-commit-big.ts [N ...]  (default 1000 4000 16000; CHARS=<body size>,
 * default 9500, about what a 40 MB markdown file gives per chunk; ROUNDS=<n>, default 3;
 * ROOT=<another checkout> to measure that one's code)
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
const ROOT = process.env.ROOT ?? new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const { openDb } = await import(`${ROOT}/src/store/db.ts`);
const { orderedId, newId } = await import(`${ROOT}/src/store/ids.ts`);
const jobStore = await import(`${ROOT}/src/ingest/job-store.ts`);
const { tempDir } = await import(`${ROOT}/test/helpers/server.ts`);

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const CHARS = Number(process.env.CHARS ?? 9500);
const ORG = "00000000-0000-4000-8000-00000000000a";
const CORPUS = "00000000-0000-4000-8000-00000000000b";
const md5 = (s: string) => new Bun.CryptoHasher("md5").update(s).digest("hex");

function rowsOf(n: number) {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  return Array.from({ length: n }, (_, i) => {
    const text = `${i} `.padEnd(CHARS, letters[i % 26]);
    return { id: orderedId(), seq: i, pages: [] as number[], hash: md5(text), kind: (i ? "chunk" : "summary") as "chunk" | "summary", text };
  });
}

/** Runs f (sync or async) with a 1 ms interval timer watching the loop; returns ms taken and the longest gap. */
async function watched(f: () => unknown): Promise<{ ms: number; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const t = setInterval(() => { const now = performance.now(); stall = Math.max(stall, now - last); last = now; }, 1);
  await Bun.sleep(5);
  last = performance.now();
  const t0 = performance.now();
  await f();
  const ms = performance.now() - t0;
  await Bun.sleep(5);
  stall = Math.max(stall, performance.now() - last);
  clearInterval(t);
  return { ms, stall };
}

using tmp = tempDir("kbqa-bench-commit-");
const dir = tmp.path;
const db = openDb(join(dir, "svc"));
db.query("INSERT INTO orgs (id, name, created_at) VALUES (?, 'o', 0)").run(ORG);
db.query("INSERT INTO corpora (id, org_id, name, created_at, updated_at) VALUES (?, ?, 'c', 0, 0)").run(CORPUS, ORG);

const raw = new Database(join(dir, "raw.sqlite"), { create: true, strict: true });
for (const p of ["journal_mode = WAL", "synchronous = NORMAL", "mmap_size = 268435456", "cache_size = -65536"]) raw.exec(`PRAGMA ${p}`);
raw.exec(`CREATE TABLE plain (id TEXT, org_id TEXT, corpus_id TEXT, document_id TEXT, generation INTEGER, seq INTEGER, pages TEXT,
  first_page INTEGER, hash TEXT, metadata TEXT, body TEXT, created_at INTEGER, doc_seq INTEGER)`);
const rawIns = raw.prepare("INSERT INTO plain VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

async function serviceCommit(rows: ReturnType<typeof rowsOf>) {
  const id = newId();
  const now = Date.now();
  db.query(
    `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, created_at, updated_at, blob_key, generation)
     VALUES (?, ?, ?, 'f.md', 'text/markdown', 'PROCESSING', ?, 'u', ?, ?, ?, 1)`,
  ).run(id, ORG, CORPUS, rows.length * CHARS, now, now, `k/${id}`);
  const jobId = Number(db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'running', ?)").run(ORG, id, now).lastInsertRowid);
  const job = { id: jobId, org_id: ORG, document_id: id, generation: 1, state: "running", attempts: 1 };
  const fields = { chunks: rows, corpusId: CORPUS, userId: "u", tokens: rows.length * 100, nbWords: rows.length * 100, nbPages: 0, lang: "en", summary: rows[0]!.text };
  const r = await watched(() => jobStore.commitReadyMany(db, [{ job, fields }], now));
  const st = (db.query("SELECT status, (SELECT count(*) FROM chunks WHERE document_id = d.id) AS n FROM documents d WHERE id = ?").get(id) as { status: string; n: number });
  if (st.status !== "READY" || st.n !== rows.length) throw new Error(`commit left ${st.status} with ${st.n} rows`);
  return r;
}

function rawCommit(rows: ReturnType<typeof rowsOf>) {
  const doc = newId();
  const now = Date.now();
  return watched(() => raw.transaction(() => {
    for (const c of rows) rawIns.run(c.id, ORG, CORPUS, doc, 1, c.seq, JSON.stringify(c.pages), 0, c.hash, JSON.stringify({ kind: c.kind }), c.text, now, 1);
  }).immediate());
}

// One untimed round first: statements are prepared and the page cache warm, as on a running server.
await serviceCommit(rowsOf(50));
await rawCommit(rowsOf(50));
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`body ${CHARS} chars per chunk; median of ${ROUNDS} rounds (service and raw alternate); stall = longest gap of a 1 ms interval timer`);
for (const n of sizes.length ? sizes : [1000, 4000, 16000]) {
  const s: { ms: number; stall: number }[] = [];
  const r: { ms: number; stall: number }[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const rows = rowsOf(n);
    s.push(await serviceCommit(rows));
    r.push(await rawCommit(rows));
  }
  const line = (xs: typeof s) => `${med(xs.map((x) => x.ms)).toFixed(0).padStart(5)} ms (${((med(xs.map((x) => x.ms)) * 1000) / n).toFixed(0)} µs/row, stall ${med(xs.map((x) => x.stall)).toFixed(0)} ms)`;
  console.log(`N=${String(n).padStart(6)}  service ${line(s)}  raw ${line(r)}`);
}
db.close();
raw.close();
