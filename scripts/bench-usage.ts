/**
 * Usage report latency over one million recorded events.
 *
 *   bun scripts/bench-usage.ts [events=1000000] [iterations=200]
 *
 * Records the events through recordUsage (one row each; a trigger feeds the daily and monthly
 * rollups in the same transaction; 50k events per transaction), spread
 * evenly over the 5 years before "now" across 10 users and 20 corpora, then times each
 * timeframe at each scope. Baseline, measured in the same run on the same database: the raw
 * `SELECT sum(amount) FROM usage_events WHERE org_id = ?` a rollup-free report would need at least.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/store/db.ts";
import { recordUsage, type UsageEvent } from "../src/usage/record.ts";
import { usageService } from "../src/usage/service.ts";
import { TIMEFRAMES } from "../src/usage/buckets.ts";

const N = Number(process.argv[2] ?? 1_000_000);
const ITER = Number(process.argv[3] ?? 200);
const dir = mkdtempSync(join(tmpdir(), "kbqa-bench-usage-"));
const db = openDb(dir);
const org = crypto.randomUUID();
const NOW = Date.parse("2026-11-22T15:30:00Z");
const SPAN = 5 * 365 * 86_400_000;
const users = Array.from({ length: 10 }, (_, i) => `user-${i}`);
const corpora = Array.from({ length: 20 }, () => crypto.randomUUID());
for (const c of corpora) db.query("INSERT INTO corpora (id, org_id, name, created_at, updated_at) VALUES (?, ?, 'c', 0, 0)").run(c, org);

const METRICS: Pick<UsageEvent, "metric" | "op" | "source">[] = [
  { metric: "tokens", op: "used", source: "post" },
  { metric: "tokens", op: "used", source: "document" },
  { metric: "posts", op: "created" },
  { metric: "posts", op: "removed" },
  { metric: "sessions", op: "created" },
  { metric: "sessions", op: "removed" },
  { metric: "storage", op: "created" },
  { metric: "storage", op: "removed" },
  { metric: "corpora", op: "created" },
  { metric: "corpora", op: "removed" },
];

let seed = 7;
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);

const t0 = performance.now();
const BATCH = 50_000;
for (let done = 0; done < N; done += BATCH) {
  db.transaction(() => {
    for (let i = done; i < Math.min(N, done + BATCH); i++) {
      const m = METRICS[rnd(METRICS.length)]!;
      recordUsage(db, org, {
        ...m,
        amount: m.metric === "tokens" ? 1 + rnd(2000) : m.metric === "storage" ? 1 + rnd(5_000_000) : 1,
        at: NOW - SPAN + Math.floor((i / N) * SPAN) + rnd(1000),
        userId: users[rnd(users.length)],
        corpusId: corpora[rnd(corpora.length)],
      });
    }
  })();
}
const insertS = (performance.now() - t0) / 1000;
const dailyRows = db.query<{ n: number }, []>("SELECT count(*) AS n FROM usage_daily").get()!.n;
console.log(`recorded ${N} events in ${insertS.toFixed(1)} s (${Math.round(N / insertS)} events/s); usage_daily rows: ${dailyRows}`);

function time(fn: () => unknown, iterations = ITER) {
  for (let i = 0; i < 3; i++) fn(); // warm statement caches
  const xs: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const s = performance.now();
    fn();
    xs.push(performance.now() - s);
  }
  xs.sort((a, b) => a - b);
  const q = (p: number) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)]!;
  return { p50: q(0.5), p99: q(0.99), max: xs.at(-1)! };
}
const fmt = (r: { p50: number; p99: number; max: number }) => `p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  max ${r.max.toFixed(2)} ms`;

const rawSum = db.query<{ s: number }, [string]>("SELECT sum(amount) AS s FROM usage_events WHERE org_id = ?");
// Fewer rounds: each one reads the whole million rows.
console.log(`baseline raw sum over usage_events        ${fmt(time(() => rawSum.get(org), Math.min(ITER, 20)))}`);

const usage = usageService(db, { now: () => NOW });
let worst = 0;
for (const tf of TIMEFRAMES) {
  for (const [scope, run] of [
    ["org", () => usage.organization(org, tf)],
    ["user", () => usage.user(org, users[3]!, tf)],
    ["corpus", () => usage.corpus(org, corpora[5]!, tf)],
  ] as const) {
    const r = time(run);
    worst = Math.max(worst, r.p99);
    console.log(`${tf.padEnd(5)} ${scope.padEnd(6)} report                      ${fmt(r)}`);
  }
}
// Write cost of the rollup trigger: 100k events through recordUsage vs the same rows into a
// copy of usage_events without the trigger, same transaction size.
db.exec("CREATE TABLE plain_events AS SELECT * FROM usage_events WHERE 0");
db.exec("CREATE INDEX plain_org_at ON plain_events(org_id, metric, at)");
const W = Math.min(N, 100_000);
const writes = (insert: (e: UsageEvent) => void) => {
  const s = performance.now();
  db.transaction(() => {
    for (let i = 0; i < W; i++) {
      const m = METRICS[rnd(METRICS.length)]!;
      insert({ ...m, amount: 1 + rnd(100), at: NOW - rnd(SPAN), userId: users[rnd(users.length)], corpusId: corpora[rnd(corpora.length)] });
    }
  })();
  return W / ((performance.now() - s) / 1000);
};
const plainInsert = db.query("INSERT INTO plain_events (org_id, at, metric, op, amount, user_id, corpus_id, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
const plainRate = writes((e) => plainInsert.run("other", e.at, e.metric, e.op, e.amount, e.userId ?? null, e.corpusId ?? null, e.source ?? null));
const rollupRate = writes((e) => recordUsage(db, "other", e));
console.log(`writes: recordUsage with rollup trigger ${Math.round(rollupRate)} events/s; plain insert baseline ${Math.round(plainRate)} events/s (${(plainRate / rollupRate).toFixed(1)}x)`);

const check = usage.organization(org, "Year");
const rawTokens = db.query<{ s: number }, [string, number]>("SELECT sum(amount) AS s FROM usage_events WHERE org_id = ? AND metric = 'tokens' AND at <= ?").get(org, NOW)!.s;
console.log(`check: Year report tokens.total ${check.tokens.total} = raw ${rawTokens}: ${check.tokens.total === rawTokens}`);
console.log(`load average during the run: ${require("node:os").loadavg().map((x: number) => x.toFixed(1)).join(" ")} on ${require("node:os").cpus().length} cores`);
console.log(`worst p99 ${worst.toFixed(2)} ms (target < 100 ms): ${worst < 100 ? "OK" : "MISSED"}`);
db.close();
rmSync(dir, { recursive: true, force: true });
