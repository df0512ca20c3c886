// Ingestion throughput through the real server (scheduler, worker processes, summary, embeddings,
// LanceDB, SQLite commit) on a generated 200-page text PDF and 500 small markdown files.
// Baseline measured in the same run, the bare stages called directly in a child process
// (scripts/lib/bare-stages.ts): convert() alone, elements+chunking alone, the summariser alone,
// the embedder alone on the same texts the pipeline embeds (chunks and the summary chunk), and for
// the small files also counters and storing. They are timed just before the pipeline run they
// are compared with (the PDF once, the small files one pass before each round), so both see the
// machine in the same state (this VM's speed drifts by tens of percent within minutes).
// Documents are handed to the server exactly as commit does (document row + blob + job row, then
// a wake-up of the scheduler); the 500 files are committed in one transaction and timed from that
// commit, after the PDF's previews are done (they would otherwise compete for the workers and the CPU).
// With the built-in models, summary and embeddings run in the worker processes (ingest/enrich.ts).
// Event-loop stalls of the server process (it runs in this process) are sampled every 5 ms.
// Run: bun scripts/bench-ingest.ts [--workers N] [--docs 500] [--no-pdf]
//   --docs N   markdown files (default 500); --no-pdf skips the PDF part (quicker while developing)
//   --rounds R the markdown batch R times (default 5, fresh documents each time) after one warm-up
//              round on the freshly spawned workers (as the bare stages get a warm-up pass); the
//              median round is reported and every round listed
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { loadConfig } from "../src/config.ts";
import { startServer } from "../src/server.ts";
import { openDb, type Db } from "../src/store/db.ts";
import { FsBlobStore } from "../src/store/fs-blob.ts";
import { originalKey } from "../src/store/blob-keys.ts";
import { newId } from "../src/store/ids.ts";
import * as lancedb from "@lancedb/lancedb";
import { markdown, type PdfStageTimes, type StageTimes } from "./lib/bare-stages.ts";

const arg = (name: string) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : undefined);
const workers = arg("workers") ?? "2";
const DOCS = Number(arg("docs") ?? 500);
const WITH_PDF = !process.argv.includes("--no-pdf");
const ROUNDS = Number(arg("rounds") ?? 5);
const WORDS = "the service converts documents into chunks and embeds every chunk for retrieval by question".split(" ");

async function pdf200(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (let p = 1; p <= 200; p++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Section ${p}`, { x: 50, y: 790, size: 20, font: bold });
    for (let l = 0; l < 45; l++) {
      const line = Array.from({ length: 12 }, (_, i) => WORDS[(p * 7 + l * 3 + i) % WORDS.length]).join(" ");
      page.drawText(`${line} ${p}.${l}.`, { x: 50, y: 760 - l * 15, size: 10, font });
    }
  }
  return doc.save();
}

async function seed(db: Db, blobs: FsBlobStore, org: string, corpus: string, bytes: Uint8Array, contentType: string): Promise<string> {
  const id = newId();
  await blobs.put(originalKey(org, id), bytes);
  const now = Date.now();
  db.transaction(() => {
    db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, created_at, updated_at, blob_key, generation)
              VALUES (?, ?, ?, 'f', ?, 'PROCESSING', ?, ?, ?, ?, 1)`).run(id, org, corpus, contentType, bytes.byteLength, now, now, originalKey(org, id));
    db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now);
  })();
  return id;
}

/** Many documents made visible to the scheduler in one commit (blobs written beforehand). */
async function writeBlobs(blobs: FsBlobStore, org: string, files: Uint8Array[]): Promise<string[]> {
  const ids = files.map(() => newId());
  for (let i = 0; i < files.length; i++) await blobs.put(originalKey(org, ids[i]!), files[i]!);
  return ids;
}

function commitMany(db: Db, org: string, corpus: string, ids: string[], files: Uint8Array[], contentType: string): string[] {
  const now = Date.now();
  db.transaction(() => {
    ids.forEach((id, i) => {
      db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, created_at, updated_at, blob_key, generation)
                VALUES (?, ?, ?, 'f', ?, 'PROCESSING', ?, ?, ?, ?, 1)`).run(id, org, corpus, contentType, files[i]!.byteLength, now, now, originalKey(org, id));
      db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now);
    });
  })();
  return ids;
}

const allStages = (t: StageTimes) => t.extract + t.summary + t.embed + t.counters + t.store;

/** The bare-stages child: `pass()` runs one pass of every stage over the files and returns its times. */
async function stagesProcess(dir: string, docs: number) {
  mkdirSync(dir, { recursive: true });
  let waiting: { res: (t: unknown) => void; rej: (e: Error) => void } | undefined;
  let ready!: () => void;
  const started = new Promise<void>((r) => (ready = r));
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "lib", "bare-stages.ts"), dir, String(docs)], {
    stdio: ["ignore", "inherit", "inherit"],
    serialization: "advanced",
    ipc(m: { type: string; result?: unknown; message?: string }) {
      if (m.type === "ready") return ready();
      const w = waiting;
      waiting = undefined;
      if (m.type === "result") w?.res(m.result!);
      else w?.rej(new Error(m.message));
    },
  });
  void proc.exited.then((code) => waiting?.rej(new Error(`the bare-stages process exited (${code})`)));
  await started;
  const request = <T>(m: { type: "pass" } | { type: "pdf"; bytes: Uint8Array }) => new Promise<T>((res, rej) => {
    waiting = { res: res as (t: unknown) => void, rej };
    proc.send(m);
  });
  return {
    pid: proc.pid,
    pass: () => request<StageTimes>({ type: "pass" }),
    pdf: (bytes: Uint8Array) => request<PdfStageTimes>({ type: "pdf", bytes }),
    stop: () => proc.kill(),
  };
}

/** CPU time of this process (all its threads), in ms. */
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** CPU time of each thread of this process by id, with its name (Linux, 10 ms ticks). */
function threadsCpu(pid: number | "self" = "self"): Map<string, { name: string; ms: number }> {
  const m = new Map<string, { name: string; ms: number }>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {}
  for (const t of tasks) {
    try {
      const st = readFileSync(`/proc/${pid}/task/${t}/stat`, "utf8");
      const name = st.slice(st.indexOf("(") + 1, st.lastIndexOf(")"));
      const f = st.slice(st.lastIndexOf(")") + 2).split(" ");
      m.set(t, { name, ms: (Number(f[11]) + Number(f[12])) * 10 });
    } catch {}
  }
  return m;
}

/** Threads of the live worker processes (children of this one), keyed pid/tid. */
function workerThreadsCpu(except: number): Map<string, { name: string; ms: number }> {
  const m = new Map<string, { name: string; ms: number }>();
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p) || Number(p) === except) continue;
    try {
      const st = readFileSync(`/proc/${p}/stat`, "utf8");
      if (Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[1]) !== process.pid) continue;
      for (const [tid, v] of threadsCpu(Number(p))) m.set(`${p}/${tid}`, v);
    } catch {}
  }
  return m;
}

/** CPU time of the worker processes (children of this one but `except`), live and exited, in ms (Linux). */
function childrenCpuMs(except: number): number {
  const ticks = (stat: string, at: number) => Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[at - 3]);
  let ms = 0;
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p) || Number(p) === except) continue;
    try {
      const st = readFileSync(`/proc/${p}/stat`, "utf8");
      if (ticks(st, 4) === process.pid) ms += (ticks(st, 14) + ticks(st, 15)) * 10;
    } catch {}
  }
  const self = readFileSync("/proc/self/stat", "utf8");
  return ms + (ticks(self, 16) + ticks(self, 17)) * 10;
}

/** Longest event-loop stall (ms beyond the 5 ms period) while `fn` runs. */
async function withStallProbe<T>(fn: () => Promise<T>): Promise<[T, number]> {
  let max = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last - 5);
    last = now;
  }, 5);
  try {
    return [await fn(), max];
  } finally {
    clearInterval(timer);
  }
}

/** Waits until no job of the organization is queued or running (one index probe, cheap: the
 *  server runs in this process, so a heavy poll would be charged to the pipeline; a count of
 *  the backlog cost about 1 ms per poll). */
async function untilSettled(db: Db, org: string, ids: string[]): Promise<number> {
  const t0 = performance.now();
  const q = db.query<{ n: number }, [string, string]>(
    "SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued' AND org_id = ?) OR EXISTS (SELECT 1 FROM jobs WHERE state = 'running' AND org_id = ?) AS n");
  while (q.get(org, org)!.n) await Bun.sleep(10);
  const ms = performance.now() - t0;
  const marks = ids.map(() => "?").join(",");
  const settled = db.query<{ n: number }, string[]>(`SELECT count(*) AS n FROM documents WHERE id IN (${marks}) AND status IN ('READY','FAILED')`).get(...ids)!.n;
  if (settled !== ids.length) throw new Error(`${ids.length - settled} documents not settled`);
  return ms;
}

/** Milliseconds until the full-text index of the chunk table has folded in every row (read with a connection of its own). */
async function untilTextIndexed(lanceDir: string): Promise<number> {
  const t0 = performance.now();
  const conn = await lancedb.connect(lanceDir);
  try {
    const table = await conn.openTable((await conn.tableNames()).find((n) => n.startsWith("chunks__"))!);
    const name = (await table.listIndices()).find((i) => i.columns.includes("text"))!.name;
    for (;;) {
      await table.checkoutLatest();
      if ((await table.indexStats(name))!.numUnindexedRows === 0) return performance.now() - t0;
      if (performance.now() - t0 > 30_000) throw new Error("the full-text index did not catch up within 30 s");
      await Bun.sleep(10);
    }
  } finally {
    conn.close();
  }
}

const chunksOf = (db: Db, ids: string[]) =>
  db.query<{ n: number }, string[]>(`SELECT count(*) AS n FROM chunks WHERE document_id IN (${ids.map(() => "?").join(",")})`).get(...ids)!.n;

const dir = mkdtempSync(join(tmpdir(), "kbqa-bench-ingest-"));
mkdirSync(join(dir, "models"));
try {
  const mds = Array.from({ length: DOCS }, (_, i) => new TextEncoder().encode(markdown(i)));

  // The bare stages run in a child process (scripts/lib/bare-stages.ts): the PDF's once just
  // before the PDF is ingested, the small files' one pass just before each round; a first pass
  // over the small files warms its JIT (the server's code is warm too).
  const bare = await stagesProcess(join(dir, "bare"), DOCS);
  await bare.pass();

  const pdf = WITH_PDF ? await pdf200() : new Uint8Array();

  // Through the server.
  const config = loadConfig({ data: join(dir, "data"), models: join(dir, "models"), port: "0", workers });
  const server = await startServer(config);
  const db = openDb(config.dataDir);
  const blobs = new FsBlobStore(join(config.dataDir, "blobs"));
  const org = newId();
  // Warm-up: spawn the worker processes (a one-off cost at server start, not per document).
  await untilSettled(db, org, await Promise.all(Array.from({ length: Number(workers) }, () => seed(db, blobs, org, newId(), mds[0]!, "text/markdown"))));

  // The PDF's bare stages in the child process, just before the pipeline gets the same bytes.
  const pdfStages = WITH_PDF ? await bare.pdf(pdf) : { convert: 0, chunk: 0, summary: 0, embed: 0, chunks: 0 };
  const pdfId = WITH_PDF ? await seed(db, blobs, org, newId(), pdf, "application/pdf") : "";
  server.wakeIngestion();
  const [pdfReadyMs, pdfStall] = WITH_PDF ? await withStallProbe(() => untilSettled(db, org, [pdfId])) : [0, 0];
  const pdfRow = db.query<{ status: string; nb_pages: number }, [string]>("SELECT status, nb_pages FROM documents WHERE id = ?").get(pdfId) ?? { status: "skipped", nb_pages: 0 };
  const pdfChunkRows = WITH_PDF ? chunksOf(db, [pdfId]) : 0;
  const previewDir = join(config.dataDir, "blobs", "orgs", org, "docs", pdfId, "g1", "preview");
  const tilesDone = () => (WITH_PDF && existsSync(previewDir) ? readdirSync(previewDir).filter((f) => f.endsWith(".png")).length : 0);
  const tp = performance.now();
  while (WITH_PDF && tilesDone() < 400 && performance.now() - tp < 300_000) await Bun.sleep(100);
  const previewMs = performance.now() - tp;

  // Workers that rendered previews may have been recycled (memory): respawn them before timing.
  await untilSettled(db, org, await Promise.all(Array.from({ length: Number(workers) }, () => seed(db, blobs, org, newId(), mds[0]!, "text/markdown"))));

  // Round -1 warms the workers (their JIT), as the first pass warms the bare stages; it is
  // reported apart. Workers live across many documents, so the timed rounds are the warm ones.
  const rounds = [];
  let cold = { mdMs: 0, ratio: 0 };
  for (let r = -1; r < ROUNDS; r++) {
    const corpus = newId();
    const mdIds = await writeBlobs(blobs, org, mds);
    const stages = await bare.pass(); // just before the round: both see the machine in the same state
    const c0 = process.cpuUsage();
    const w0 = childrenCpuMs(bare.pid);
    const th0 = threadsCpu();
    const wth0 = workerThreadsCpu(bare.pid);
    const [mdMs, mdStall] = await withStallProbe(() => {
      const ids = commitMany(db, org, corpus, mdIds, mds, "text/markdown");
      server.wakeIngestion(); // as the commit route does
      return untilSettled(db, org, ids);
    });
    const mdCpu = cpuMs(process.cpuUsage(c0));
    const threads = new Map<string, number>();
    for (const [tid, v] of threadsCpu()) threads.set(v.name, (threads.get(v.name) ?? 0) + v.ms - (th0.get(tid)?.ms ?? 0));
    const workerThreads = new Map<string, number>();
    for (const [tid, v] of workerThreadsCpu(bare.pid)) workerThreads.set(v.name, (workerThreads.get(v.name) ?? 0) + v.ms - (wth0.get(tid)?.ms ?? 0));
    const mdWorkerCpu = childrenCpuMs(bare.pid) - w0;
    const mdChunkRows = chunksOf(db, mdIds);
    const mdReady = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM documents WHERE corpus_id = '${corpus}' AND status = 'READY'`).get()!.n;
    const ftsLagMs = await untilTextIndexed(join(config.dataDir, "lance"));
    if (mdReady !== DOCS) throw new Error(`only ${mdReady} of ${DOCS} documents READY`);
    if (r < 0) cold = { mdMs, ratio: mdMs / allStages(stages) };
    else rounds.push({ mdMs, mdStall, mdCpu, mdWorkerCpu, mdChunkRows, mdReady, threads, workerThreads, ftsLagMs, stages, ratio: mdMs / allStages(stages) });
  }
  bare.stop();
  const allMs = rounds.map((r) => r.mdMs);
  const { mdMs, mdStall, mdCpu, mdWorkerCpu, mdChunkRows, mdReady, threads, workerThreads, ftsLagMs, stages: md } = [...rounds].sort((a, b) => a.mdMs - b.mdMs)[Math.floor(ROUNDS / 2)]!;
  const ratios = rounds.map((r) => r.ratio);
  const medianRatio = [...ratios].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
  await server.stop();
  db.close();

  const s = (ms: number) => (ms / 1000).toFixed(2) + " s";
  const x = (a: number, b: number) => (a / b).toFixed(2) + "x";
  console.log(`workers: ${workers}`);
  if (WITH_PDF) {
    console.log(`200-page PDF: ${pdfRow.status}, ${pdfRow.nb_pages} pages, ${pdfChunkRows} chunk rows (incl. summary); READY in ${s(pdfReadyMs)}`);
    console.log(`  ${(200 / (pdfReadyMs / 1000)).toFixed(1)} pages/s, ${(pdfChunkRows / (pdfReadyMs / 1000)).toFixed(1)} chunks/s; longest event-loop stall ${pdfStall.toFixed(0)} ms`);
    const st = pdfStages;
    console.log(`  bare stages (timed just before): convert ${s(st.convert)}, chunking ${s(st.chunk)}, summary ${s(st.summary)}, embedding ${s(st.embed)} (${st.chunks} texts)`);
    console.log(`  overhead: READY / (convert + embed) = ${x(pdfReadyMs, st.convert + st.embed)}; / (convert + chunk + summary + embed) = ${x(pdfReadyMs, st.convert + st.chunk + st.summary + st.embed)}`);
    console.log(`  previews: ${tilesDone()}/400 tiles ${s(previewMs)} after READY`);
  }
  console.log(`${DOCS} markdown files: ${mdReady}/${DOCS} READY in ${s(mdMs)}: ${(DOCS / (mdMs / 1000)).toFixed(1)} docs/s, ${(mdChunkRows / (mdMs / 1000)).toFixed(1)} chunks/s; longest event-loop stall ${mdStall.toFixed(0)} ms`);
  console.log(`  median of ${ROUNDS} rounds on warm workers: ${allMs.map((m) => (m / 1000).toFixed(2)).join(", ")} s (the warm-up round on fresh workers before them: ${s(cold.mdMs)}, ${x(cold.ratio, 1)} its stages)`);
  console.log(`  bare stages (one process, sequential, warm; the pass just before the median round): extract (convert+chunk) ${s(md.extract)}, summary ${s(md.summary)}, embedding ${s(md.embed)} (${md.chunks} texts), counters (lang, tokens, words, chunk hashes) ${s(md.counters)}, store (raw LanceDB add + the service's SQLite READY commit) ${s(md.store)}; minimal store (raw LanceDB add + plain SQLite insert) ${s(md.storeMinimal)}`);
  console.log(`  overhead, each round against the stages timed just before it: ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${x(medianRatio, 1)}`);
  console.log(`  median round: READY / all five stages = ${x(mdMs, allStages(md))}; with the minimal store = ${x(mdMs, allStages(md) - md.store + md.storeMinimal)}; / (extract + summary + embed) = ${x(mdMs, md.extract + md.summary + md.embed)}`);
  console.log(`  full-text index caught up with the last rows ${s(ftsLagMs)} after the last READY (one refresh per burst, off the READY path; a text search before it waits for it)`);
  // Wall time depends on what else runs on the machine; CPU time much less so. With the built-in
  // models the workers parse, summarise and embed; the server process does the rest.
  console.log(`  CPU time: server process ${s(mdCpu)} + workers ${s(mdWorkerCpu)} = ${s(mdCpu + mdWorkerCpu)} vs bare stages ${s(md.cpu)} = ${x(mdCpu + mdWorkerCpu, md.cpu)}`);
  // Where the server's CPU went: "bun" is the JavaScript thread, tokio and lance threads are
  // LanceDB's (writes, index upkeep), JITWorker compiles.
  const byThread = [...threads].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
  console.log(`  server CPU by thread: ${byThread.map(([name, ms]) => `${name} ${s(ms)}`).join(", ")}`);
  const byWorkerThread = [...workerThreads].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
  console.log(`  workers' CPU by thread (both workers): ${byWorkerThread.map(([name, ms]) => `${name} ${s(ms)}`).join(", ")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
