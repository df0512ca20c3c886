/**
 * Ingestion into a data directory that already holds many documents and vector rows (the scale
 * audit saw 62.8 docs/s on an empty directory and 14.5 at 50,000 documents × 10 chunks).
 *
 * Seeds once, through the real stores: --seed-docs READY documents of --chunks chunks each in
 * one corpus (SQLite documents and chunk sets with a content hash each, LanceDB rows embedded by
 * the built-in model), then one optimize and the approximate vector index, as a server that had
 * ingested them would have. Then, per round, on a fresh copy of that directory: the real server
 * (`kbqa serve`, a child process) is started and left until its CPU is idle (it loads the
 * in-memory vector copy first), --docs small markdown documents are uploaded over HTTP by 6
 * clients (init, PUT, commit), and the time until all are READY is reported, then how long until
 * the full-text index has folded them in. With --roots the rounds alternate between checkouts
 * (each started from its own src/cli.ts) on copies of the same seed, so they see the machine
 * alike; on this shared VM, compare rounds of one run only.
 *
 *   bun scripts/bench-ingest-scale.ts [--seed-docs 10000] [--chunks 10] [--docs 300] [--rounds 2]
 *       [--roots /path/a,/path/b] [--seed-dir DIR (kept and reused when it holds a seed)]
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Database } from "bun:sqlite";
import * as lancedb from "@lancedb/lancedb";
import { readListeningLine, startKbqa, ROOT } from "../test/helpers/server.ts";
import { openDb } from "../src/store/db.ts";
import { orderedId } from "../src/store/ids.ts";
import { insertChunkSets } from "../src/chunks/bulk.ts";
import { openLanceIndex } from "../src/store/lance.ts";
import { BUILTIN_EMBED_ID, hashEmbed } from "../src/models/builtin-embed.ts";
import type { VectorRecord } from "../src/store/vector.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";

const arg = (name: string) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : undefined);
const SEED_DOCS = Number(arg("seed-docs") ?? 10_000);
const PER = Number(arg("chunks") ?? 10);
const DOCS = Number(arg("docs") ?? 300);
const ROUNDS = Number(arg("rounds") ?? 2);
const ROOTS = (arg("roots") ?? ROOT).split(",").map((r) => resolve(r));
const CLIENTS = 6;

const work = mkdtempSync(join(tmpdir(), "kbqa-bench-scale-"));
const seedDir = arg("seed-dir") ? resolve(arg("seed-dir")!) : join(work, "seed");

interface Seed { orgId: string; corpusId: string; token: string }

const rnd = mulberry32(42);
// Zipf-like words, so the full-text index has a realistic dictionary.
const VOCAB = Array.from({ length: 20_000 }, (_, i) => "w" + i.toString(36));
const word = () => VOCAB[Math.floor(VOCAB.length * Math.pow(rnd(), 2.5))]!;

async function seed(dir: string): Promise<Seed> {
  mkdirSync(dir, { recursive: true });
  const k = await startKbqa({ dataDir: dir });
  const org = await k.org("scale");
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "big" })).body.id as string;
  await k.stop();
  // Long-lived, so a kept seed directory can be reused by later runs.
  const s: Seed = { orgId: org.orgId, corpusId, token: await org.jwt({}, { sub: "user-1", expSeconds: 30 * 86_400 }) };

  const db = openDb(dir);
  const lance = await openLanceIndex(join(dir, "lance"), BUILTIN_EMBED_ID, 384);
  const t0 = performance.now();
  const ins = db.prepare(
    `INSERT INTO documents (id, org_id, corpus_id, filename, filename_lc, content_type, status, size, tokens, nb_words, nb_pages, user_id, lang,
       created_at, updated_at, blob_key, generation, content_hash)
     VALUES (?, ?, ?, ?, ?, 'text/markdown', 'READY', 2000, 500, 400, 1, 'user-1', 'en', ?, ?, ?, 1, ?)`,
  );
  for (let d0 = 0; d0 < SEED_DOCS; d0 += 250) {
    const sets: Parameters<typeof insertChunkSets>[1] = [];
    const records: VectorRecord[] = [];
    db.transaction(() => {
      for (let d = d0; d < Math.min(SEED_DOCS, d0 + 250); d++) {
        const docId = crypto.randomUUID();
        const name = `seeded-${d}.md`;
        ins.run(docId, s.orgId, corpusId, name, name, d, d, `seed/${docId}`, Bun.hash(docId).toString(16));
        const chunks = Array.from({ length: PER }, (_, i) => ({
          id: orderedId(), seq: i, pages: i ? [1] : [], hash: `h${d}-${i}`, metadata: { kind: i ? "chunk" : "summary" },
          body: Array.from({ length: 30 + Math.floor(rnd() * 30) }, word).join(" "),
        }));
        sets.push({ set: { orgId: s.orgId, corpusId, documentId: docId, generation: 1, createdAt: d }, chunks });
        for (const c of chunks) records.push({ chunkId: c.id, orgId: s.orgId, corpusId, documentId: docId, generation: 1, text: c.body, vector: hashEmbed(c.body) });
      }
      insertChunkSets(db, sets);
    }).immediate();
    await lance.add(records);
    if (d0 % 5_000 === 0) console.log(`  seeded ${d0 + 250} documents, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  await lance.optimize();
  console.log(`  approximate vector index: ${await lance.ensureVectorIndex()}; seeding took ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  await lance.close();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  writeFileSync(join(dir, "bench-seed.json"), JSON.stringify(s));
  return s;
}

/** CPU time of a process in ms (Linux, 10 ms ticks). */
const cpuOf = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
/** Until the process used under 5 % of a core for two seconds in a row. */
async function untilIdle(pid: number, deadlineMs = 600_000): Promise<number> {
  const t0 = performance.now();
  let quiet = 0;
  let last = cpuOf(pid);
  while (quiet < 2 && performance.now() - t0 < deadlineMs) {
    await Bun.sleep(1000);
    const now = cpuOf(pid);
    quiet = now - last < 50 ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - t0;
}

async function untilTextIndexed(lanceDir: string, deadlineMs = 600_000): Promise<number> {
  const t0 = performance.now();
  const conn = await lancedb.connect(lanceDir);
  try {
    const table = await conn.openTable((await conn.tableNames()).find((n) => n.startsWith("chunks__"))!);
    const name = (await table.listIndices()).find((i) => i.columns.includes("text"))!.name;
    while (performance.now() - t0 < deadlineMs) {
      await table.checkoutLatest();
      if ((await table.indexStats(name))!.numUnindexedRows === 0) return performance.now() - t0;
      await Bun.sleep(100);
    }
    return NaN;
  } finally {
    conn.close();
  }
}

async function round(root: string, s: Seed) {
  const dir = join(work, "run");
  rmSync(dir, { recursive: true, force: true });
  cpSync(seedDir, dir, { recursive: true });
  const models = join(dir, "models-empty");
  mkdirSync(models, { recursive: true });
  const proc = Bun.spawn(["bun", join(root, "src/cli.ts"), "serve", "--port", "0", "--data", dir, "--models", models], {
    cwd: root, env: { ...process.env, RUST_LOG: "error" }, stdout: "pipe", stderr: "pipe",
  });
  let err = "";
  void (async () => {
    const dec = new TextDecoder();
    for await (const c of proc.stderr as ReadableStream<Uint8Array>) err = (err + dec.decode(c)).slice(-20_000);
  })();
  try {
    const url = await readListeningLine(proc, () => err);
    const idleMs = await untilIdle(proc.pid);
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(url + path, { method, headers: { authorization: `Bearer ${s.token}`, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return { status: r.status, body: (await r.json()) as any };
    };
    const ids: string[] = [];
    const tag = Math.random().toString(36).slice(2, 8);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next < DOCS) {
        const i = next++;
        const md = `# Note ${i} ${tag}\n\n` + Array.from({ length: 8 }, (_, p) => `Paragraph ${p} about w${(i * 7 + p).toString(36)} topic ${i} ${tag}. `.repeat(12)).join("\n\n");
        const init = await api("POST", "/v1/doc/init", { corpusId: s.corpusId, filename: `new-${tag}-${i}.md`, contentType: "text/markdown" });
        await (await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body: md })).text();
        const c = await api("POST", `/v1/doc/${init.body.document.id}/commit`);
        if (c.status !== 202) throw new Error(`commit: ${c.status} ${JSON.stringify(c.body)}`);
        ids.push(init.body.document.id);
      }
    }));
    const uploadMs = performance.now() - t0;
    // Polled in the database (read-only), not over HTTP: the poll must not load the server.
    const db = new Database(join(dir, "kbqa.sqlite"), { readonly: true });
    const pending = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM documents WHERE id IN (${ids.map((id) => `'${id}'`).join(",")}) AND status = 'PROCESSING'`);
    while (pending.get()!.n > 0 && performance.now() - t0 < 600_000) await Bun.sleep(50);
    const readyMs = performance.now() - t0;
    const ready = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM documents WHERE id IN (${ids.map((id) => `'${id}'`).join(",")}) AND status = 'READY'`).get()!.n;
    db.close();
    const ftsMs = await untilTextIndexed(join(dir, "lance"));
    return { idleMs, uploadMs, readyMs, ready, ftsMs };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

try {
  let s: Seed;
  if (existsSync(join(seedDir, "bench-seed.json"))) {
    s = JSON.parse(readFileSync(join(seedDir, "bench-seed.json"), "utf8"));
    console.log(`reusing the seed in ${seedDir}`);
  } else {
    console.log(`seeding ${SEED_DOCS} documents × ${PER} chunks into ${seedDir}`);
    s = await seed(seedDir);
  }
  for (let r = 1; r <= ROUNDS; r++) {
    for (const root of ROOTS) {
      const x = await round(root, s);
      const sec = (ms: number) => (ms / 1000).toFixed(1) + " s";
      console.log(`round ${r} ${root}: ${x.ready}/${DOCS} READY in ${sec(x.readyMs)} = ${((DOCS * 1000) / x.readyMs).toFixed(1)} docs/s (uploads ${sec(x.uploadMs)}); `
        + `full-text index caught up ${sec(x.ftsMs)} later; server idle ${sec(x.idleMs)} after start; load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true }); // a --seed-dir lives outside it and is kept
}
