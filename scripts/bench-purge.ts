/**
 * The purge of spent bookkeeping rows (src/store/purge.ts) over a backlog, in-process on a real
 * database in a temporary directory: N documents' worth of rows (test/helpers/purge-backlog.ts:
 * per document an upload grant, a job and every third an access token, among them rows that must
 * stay for their own reason, the last 1% created after the cutoff), as a directory upgraded from a build
 * without the purge holds them. Each batch is one synchronous transaction, so its time is how long
 * the event loop is held: reported per table as p50, p99 and max, with the pass's total, then a
 * second pass over what stays (the steady state: nothing to delete, the kept rows walked again),
 * and the database file and its free pages before and after.
 *
 * Then the real thing: a server (`kbqa serve`, default --purge-after) started on a fresh backlog of
 * the same size, with a client pinging `/pub/ping` every 10 ms from the start until the tables are
 * down to what stays: a ping waits as long as the event loop is held, so the worst ping is the
 * longest hold. The baseline is the same server started first with nothing to purge (a margin of
 * 30 years), pinged for 8 s: a start has work of its own.
 *
 *   bun scripts/bench-purge.ts [documents=100000] [rowsPerBatch=BATCH_ROWS]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, type Db } from "../src/store/db.ts";
import { purgeBatch, BATCH_ROWS, type PurgeRule } from "../src/store/purge.ts";
import { FINISHED_JOBS } from "../src/ingest/job-store.ts";
import { SPENT_GRANTS } from "../src/storage/grants.ts";
import { EXPIRED_TOKENS } from "../src/auth/tokens.ts";
import { seedBacklog } from "../test/helpers/purge-backlog.ts";
import { startKbqa } from "../test/helpers/server.ts";

const DOCS = Number(process.argv[2] ?? 100_000);
const LIMIT = Number(process.argv[3] ?? BATCH_ROWS);
const CUTOFF = Date.now() - 7 * 86_400_000;
const dir = mkdtempSync(join(tmpdir(), "kbqa-bench-purge-"));

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const ms = (v: number) => v.toFixed(2);

function pass(db: Db, rule: PurgeRule) {
  const times: number[] = [];
  let after = 0;
  let deleted = 0;
  const t0 = performance.now();
  for (;;) {
    const b0 = performance.now();
    const b = purgeBatch(db, rule, after, CUTOFF, LIMIT);
    times.push(performance.now() - b0);
    deleted += b.deleted;
    after = b.after;
    if (b.done) break;
  }
  return { deleted, batches: times.length, p50: pct(times, 50), p99: pct(times, 99), max: Math.max(...times), total: performance.now() - t0 };
}

function fileInfo(db: Db) {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const pages = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
  const free = db.query<{ freelist_count: number }, []>("PRAGMA freelist_count").get()!.freelist_count;
  const size = statSync(join(dir, "kbqa.sqlite")).size;
  return `${(size / 2 ** 20).toFixed(1)} MB, ${pages} pages of which ${free} free`;
}

try {
  const db = openDb(dir);
  const t0 = performance.now();
  const b = seedBacklog(db, { orgId: crypto.randomUUID(), corpusId: crypto.randomUUID(), documents: DOCS, recent: Math.round(DOCS / 100), cutoff: CUTOFF });
  console.log(`${DOCS} documents seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${JSON.stringify(b.total)}; ${LIMIT} rows per batch`);
  console.log(`database before: ${fileInfo(db)}`);
  for (const round of ["first pass (the backlog)", "second pass (steady state)"]) {
    console.log(`\n${round}`);
    console.log("table            deleted   batches   batch p50 ms   p99 ms   max ms   pass ms");
    for (const rule of [FINISHED_JOBS, SPENT_GRANTS, EXPIRED_TOKENS]) {
      const r = pass(db, rule);
      console.log(
        [rule.table.padEnd(14), String(r.deleted).padStart(9), String(r.batches).padStart(9), ms(r.p50).padStart(14), ms(r.p99).padStart(8), ms(r.max).padStart(8), ms(r.total).padStart(9)].join(" "),
      );
    }
  }
  console.log(`\ndatabase after: ${fileInfo(db)} (SQLite reuses free pages before growing the file)`);
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Over HTTP: a server purging the same backlog at start.
const served = mkdtempSync(join(tmpdir(), "kbqa-bench-purge-http-"));
try {
  const db = openDb(served);
  const b = seedBacklog(db, { orgId: crypto.randomUUID(), corpusId: crypto.randomUUID(), documents: DOCS, recent: Math.round(DOCS / 100), cutoff: CUTOFF, activeJobs: false });
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  const settled = () => {
    const d = new Database(join(served, "kbqa.sqlite"), { readonly: true });
    try {
      const n = (t: string) => d.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${t}`).get()!.n;
      return n("jobs") === b.kept.jobs.size && n("upload_grants") === b.kept.upload_grants.size && n("access_tokens") === b.kept.access_tokens.size;
    } finally {
      d.close();
    }
  };
  /** Pings /pub/ping every 10 ms from the server's start until `until` holds; the worst and the count. */
  const pinged = async (flags: string[], until: (elapsed: number) => boolean) => {
    const k = await startKbqa({ dataDir: served, env: { RUST_LOG: "error" }, flags });
    let worst = 0;
    let count = 0;
    const t0 = performance.now();
    let next = 0;
    for (;;) {
      const p0 = performance.now();
      await fetch(`${k.url}/pub/ping`).then((r) => r.arrayBuffer());
      worst = Math.max(worst, performance.now() - p0);
      count++;
      if (performance.now() > next) {
        if (until((performance.now() - t0) / 1000)) break;
        next = performance.now() + 100;
      }
      await Bun.sleep(10);
    }
    const s = (performance.now() - t0) / 1000;
    await k.stop();
    return { worst, count, s };
  };
  const off = await pinged(["--purge-after", "1000000000"], (s) => s > 8);
  const on = await pinged([], settled);
  console.log(`\nover HTTP, from the server's start: the first pass took at most ${on.s.toFixed(1)} s; worst /pub/ping ${on.worst.toFixed(1)} ms (${on.count} pings); with nothing to purge (--purge-after 1000000000), ${off.worst.toFixed(1)} ms over ${off.s.toFixed(1)} s (${off.count} pings)`);
} finally {
  rmSync(served, { recursive: true, force: true });
}
