import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { recordUsage, type UsageEvent } from "../../src/usage/record.ts";
import { usageService } from "../../src/usage/service.ts";
import { corpusService } from "../../src/corpus/service.ts";
import { TIMEFRAMES, type Timeframe } from "../../src/usage/buckets.ts";
import { AppError } from "../../src/http/errors.ts";
import { migrations } from "../../src/usage/migrations.ts";

const ms = (s: string) => Date.parse(s);
let dir: string;
let db: Db;
let now = 0;
const clock = { now: () => now };
const zero = { created: 0, removed: 0 };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kbqa-usage-"));
  db = openDb(dir);
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

let orgN = 0;
const freshOrg = () => `org-${++orgN}`;
const ev = (e: Partial<Omit<UsageEvent, "at">> & { at: string }): UsageEvent =>
  ({ metric: "posts", op: "created", amount: 1, userId: "u1", corpusId: null, source: null, ...e, at: ms(e.at) }) as UsageEvent;

/** The series bucket whose `from` is the given day, or undefined. */
const bucket = <B extends { from: string }>(r: { series: B[] }, day: string): B | undefined =>
  r.series.find((b) => b.from === `${day}T00:00:00.000Z`);

describe("events on bucket edges", () => {
  const CASES: { tf: Timeframe; now: string; last: string; inLast: string; inProgress: string; beforeRange: string; first: string }[] = [
    { tf: "Day", now: "2027-01-01T00:00:00.000Z", last: "2026-12-31", inLast: "2026-12-31T23:59:59.999Z", inProgress: "2027-01-01T00:00:00.000Z", beforeRange: "2026-12-01T23:59:59.999Z", first: "2026-12-02T00:00:00.000Z" },
    { tf: "Week", now: "2027-01-04T00:00:00.000Z", last: "2026-12-28", inLast: "2027-01-03T23:59:59.999Z", inProgress: "2027-01-04T00:00:00.000Z", beforeRange: "2026-10-11T23:59:59.999Z", first: "2026-10-12T00:00:00.000Z" },
    { tf: "Week", now: "2027-01-01T09:00:00.000Z", last: "2026-12-21", inLast: "2026-12-27T23:59:59.999Z", inProgress: "2026-12-28T00:00:00.000Z", beforeRange: "2026-10-04T23:59:59.999Z", first: "2026-10-05T00:00:00.000Z" },
    { tf: "Month", now: "2028-03-01T00:00:00.000Z", last: "2028-02-01", inLast: "2028-02-29T23:59:59.999Z", inProgress: "2028-03-01T00:00:00.000Z", beforeRange: "2027-02-28T23:59:59.999Z", first: "2027-03-01T00:00:00.000Z" },
    { tf: "Year", now: "2027-01-01T00:00:00.000Z", last: "2026-01-01", inLast: "2026-12-31T23:59:59.999Z", inProgress: "2027-01-01T00:00:00.000Z", beforeRange: "2021-12-31T23:59:59.999Z", first: "2022-01-01T00:00:00.000Z" },
  ];
  for (const c of CASES) {
    test(`${c.tf} at ${c.now}`, () => {
      const org = freshOrg();
      recordUsage(db, org, ev({ at: c.inLast, amount: 1 }));
      recordUsage(db, org, ev({ at: c.inProgress, amount: 10 }));
      recordUsage(db, org, ev({ at: c.beforeRange, amount: 100 }));
      recordUsage(db, org, ev({ at: c.first, amount: 1000 }));
      recordUsage(db, org, ev({ at: c.inLast, op: "removed", amount: 7 }));
      // After `timestamp`, which is the clock or, at a bucket's first millisecond, the next one
      // (so that `to` is strictly earlier): not yet happened for this report.
      recordUsage(db, org, ev({ at: new Date(ms(c.now) + 2).toISOString(), amount: 10000 }));
      now = ms(c.now);
      const r = usageService(db, clock).organization(org, c.tf);
      expect(ms(r.to)).toBeLessThan(ms(r.timestamp));
      expect(ms(r.timestamp) - now).toBe(c.inProgress === c.now ? 1 : 0);
      expect(r.posts).toEqual({ total: 1111, live: 1104, created: 1001, removed: 7 });
      expect(bucket(r, c.last)!.posts).toEqual({ created: 1, removed: 7 });
      expect(r.series[0]!.posts).toEqual({ created: 1000, removed: 0 });
      expect(r.series.at(-1)!.from).toBe(`${c.last}T00:00:00.000Z`);
      expect(r.series.reduce((n, b) => n + b.posts.created, 0)).toBe(r.posts.created);
    });
  }
});

describe("scopes", () => {
  test("corpora only at organization scope; corpus tokens count posts only; zeros for unknown users", () => {
    const org = freshOrg();
    now = ms("2030-06-15T12:00:00Z");
    const corpora = corpusService(db, { now: () => ms("2030-06-14T08:00:00Z") });
    const c1 = corpora.create(org, "alice", { name: "one" });
    const c2 = corpora.create(org, "bob", { name: "two" });
    const day = "2030-06-14T09:00:00Z";
    recordUsage(db, org, ev({ at: day, metric: "tokens", op: "used", amount: 500, userId: "alice", corpusId: c1.id, source: "document" }));
    recordUsage(db, org, ev({ at: day, metric: "tokens", op: "used", amount: 40, userId: "alice", corpusId: c1.id, source: "post" }));
    recordUsage(db, org, ev({ at: day, metric: "tokens", op: "used", amount: 2, userId: "bob", corpusId: c2.id, source: "post" }));
    recordUsage(db, org, ev({ at: day, metric: "storage", op: "created", amount: 4096, userId: "alice", corpusId: c1.id }));
    recordUsage(db, org, ev({ at: day, metric: "sessions", op: "created", amount: 1, userId: "alice", corpusId: c1.id }));
    recordUsage(db, org, ev({ at: "2030-06-15T11:00:00Z", metric: "tokens", op: "used", amount: 3, userId: "alice", corpusId: c1.id, source: "post" }));
    const s = usageService(db, clock);

    const all = s.organization(org, "Day");
    expect(all.corpora).toEqual({ total: 2, live: 2, created: 2, removed: 0 });
    expect(all.tokens).toEqual({ total: 545, inPeriod: 542 });
    expect(all.series.at(-1)).toEqual({
      from: "2030-06-14T00:00:00.000Z", to: "2030-06-15T00:00:00.000Z", tokens: 542,
      corpora: { created: 2, removed: 0 }, sessions: { created: 1, removed: 0 }, posts: zero, storage: { created: 4096, removed: 0 },
    });

    const alice = s.user(org, "alice", "Day");
    expect(alice.corpora).toBeNull();
    expect(alice.tokens).toEqual({ total: 543, inPeriod: 540 });
    for (const b of alice.series) expect("corpora" in b).toBe(false);

    const corpus = s.corpus(org, c1.id, "Day");
    expect(corpus.corpora).toBeNull();
    expect(corpus.tokens).toEqual({ total: 43, inPeriod: 40 });
    expect(corpus.storage).toEqual({ total: 4096, live: 4096, created: 4096, removed: 0 });
    expect(corpus.series.at(-1)).toEqual({ from: "2030-06-14T00:00:00.000Z", to: "2030-06-15T00:00:00.000Z", tokens: 40, sessions: { created: 1, removed: 0 }, posts: zero, storage: { created: 4096, removed: 0 } });

    const nobody = s.user(org, "nobody", "Year");
    expect({ ...nobody, series: nobody.series.length }).toEqual({
      timeframe: "Year", from: "2025-01-01T00:00:00.000Z", to: "2030-01-01T00:00:00.000Z", organizationId: org, timestamp: "2030-06-15T12:00:00.000Z",
      tokens: { total: 0, inPeriod: 0 }, corpora: null,
      sessions: { total: 0, live: 0, ...zero }, posts: { total: 0, live: 0, ...zero }, storage: { total: 0, live: 0, ...zero }, series: 5,
    });
    // alice of another organization sees nothing of this one
    expect(s.user(freshOrg(), "alice", "Day").tokens).toEqual({ total: 0, inPeriod: 0 });
  });

  test("another organization's corpus is 404; a soft-deleted own corpus keeps its report", () => {
    const org = freshOrg();
    now = ms("2030-01-10T00:00:00Z");
    const corpora = corpusService(db, clock);
    const c = corpora.create(org, "u", { name: "x" });
    const s = usageService(db, clock);
    let err: unknown;
    try {
      s.corpus(freshOrg(), c.id, "Month");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(404);
    corpora.remove(org, "u", c.id);
    now = ms("2030-01-11T00:00:00Z");
    expect(s.organization(org, "Day").corpora).toEqual({ total: 1, live: 0, created: 1, removed: 1 });
    expect(s.corpus(org, c.id, "Day").organizationId).toBe(org);
  });
});

/** A direct, rollup-free reading of usage_events: the oracle for the rollup-based reports. */
function naive(org: string, scope: "org" | "user" | "corpus", subject: string, from: number, to: number, at: number) {
  const rows = db.query<{ at: number; metric: string; op: string; amount: number; user_id: string | null; corpus_id: string | null; source: string | null }, [string]>(
    "SELECT * FROM usage_events WHERE org_id = ?",
  ).all(org);
  const out: Record<string, number> = {};
  const add = (k: string, n: number) => (out[k] = (out[k] ?? 0) + n);
  for (const r of rows) {
    if (scope === "user" && r.user_id !== subject) continue;
    if (scope === "corpus" && r.corpus_id !== subject) continue;
    if (r.metric === "corpora" && scope !== "org") continue;
    if (r.metric === "tokens" && scope === "corpus" && r.source !== "post") continue;
    const inRange = r.at >= from && r.at < to;
    if (r.metric === "tokens") {
      if (r.at <= at) add("tokens.total", r.amount);
      if (inRange) add("tokens.inPeriod", r.amount);
    } else {
      if (r.at <= at && r.op === "created") add(`${r.metric}.total`, r.amount);
      if (r.at <= at) add(`${r.metric}.live`, r.op === "created" ? r.amount : -r.amount);
      if (inRange) add(`${r.metric}.${r.op}`, r.amount);
    }
  }
  return out;
}

test("rollup-based reports equal a direct reading of the events (random events over 6 years)", () => {
  const org = freshOrg();
  let seed = 42;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const start = ms("2024-01-01T00:00:00Z");
  const span = 6 * 366 * 86_400_000;
  const metrics = ["corpora", "sessions", "posts", "storage", "tokens"] as const;
  const nows = [ms("2029-07-04T13:14:15.016Z"), ms("2027-01-01T00:00:00Z"), ms("2028-02-29T23:59:59.999Z")];
  db.transaction(() => {
    for (let i = 0; i < 3000; i++) {
      const metric = metrics[rnd(5)]!;
      // Concentrate some events on the reporting days so "today" and "timestamp" matter.
      const at = i % 10 === 0 ? nows[rnd(3)]! - rnd(3) * 3_600_000 + rnd(2) : start + rnd(span);
      recordUsage(db, org, {
        metric,
        op: metric === "tokens" ? "used" : rnd(3) === 0 ? "removed" : "created",
        amount: 1 + rnd(1000),
        at,
        userId: rnd(5) === 0 ? null : `u${rnd(3)}`,
        corpusId: rnd(5) === 0 ? null : `c${rnd(3)}`,
        source: metric === "tokens" ? (rnd(2) ? "post" : "document") : null,
      });
    }
  })();
  db.query("INSERT INTO corpora (id, org_id, name, created_at, updated_at) VALUES ('c1', ?, 'c1', 0, 0)").run(org);
  const s = usageService(db, clock);
  for (const at of nows) {
    now = at;
    for (const tf of TIMEFRAMES) {
      for (const [scope, subject] of [["org", ""], ["user", "u1"], ["corpus", "c1"]] as const) {
        const r = scope === "org" ? s.organization(org, tf) : scope === "user" ? s.user(org, subject, tf) : s.corpus(org, subject, tf);
        const want = naive(org, scope, subject, Date.parse(r.from), Date.parse(r.to), at);
        const got: Record<string, number> = { "tokens.total": r.tokens.total, "tokens.inPeriod": r.tokens.inPeriod };
        for (const m of ["corpora", "sessions", "posts", "storage"] as const) {
          const c = r[m];
          if (!c) continue;
          for (const k of ["total", "live", "created", "removed"] as const) got[`${m}.${k}`] = c[k];
        }
        for (const k of Object.keys(got)) if (got[k] === 0 && !(k in want)) want[k] = 0;
        expect(got).toEqual(want);
        // Series sums equal the top-level figures exactly, and the buckets are contiguous.
        expect(r.series.reduce((n, b) => n + b.tokens, 0)).toBe(r.tokens.inPeriod);
        for (const m of ["sessions", "posts", "storage"] as const) {
          expect(r.series.reduce((n, b) => n + b[m].created, 0)).toBe(r[m].created);
          expect(r.series.reduce((n, b) => n + b[m].removed, 0)).toBe(r[m].removed);
        }
        for (let i = 1; i < r.series.length; i++) expect(r.series[i]!.from).toBe(r.series[i - 1]!.to);
        expect([r.series[0]!.from, r.series.at(-1)!.to]).toEqual([r.from, r.to]);
      }
    }
  }
});

test("raw INSERT … SELECT writers feed the rollups through the trigger; the usage-004 rebuild gives the same rows", () => {
  const own = mkdtempSync(join(tmpdir(), "kbqa-usage-backfill-"));
  const db2 = openDb(own);
  try {
    const at = ms("2028-01-31T23:59:59.999Z");
    const raw = db2.query("INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source) SELECT 'o', ?, 'posts', 'created', ?, ?, ?, NULL");
    raw.run(at, 3, "u", "c");
    raw.run(at + 1, 2, null, null); // first millisecond of February
    raw.run(at - 86_400_000, 4, "", "c");
    const snapshot = () => ({
      daily: db2.query("SELECT scope, subject, day, source, amount FROM usage_daily ORDER BY scope, subject, day").all(),
      monthly: db2.query("SELECT scope, subject, month, source, amount FROM usage_monthly ORDER BY scope, subject, month").all(),
    });
    const day = Math.floor(at / 86_400_000);
    const jan = 2028 * 12;
    const want = {
      daily: [
        { scope: "corpus", subject: "c", day: day - 1, source: "", amount: 4 },
        { scope: "corpus", subject: "c", day, source: "", amount: 3 },
        { scope: "org", subject: "", day: day - 1, source: "", amount: 4 },
        { scope: "org", subject: "", day, source: "", amount: 3 },
        { scope: "org", subject: "", day: day + 1, source: "", amount: 2 },
        { scope: "user", subject: "u", day, source: "", amount: 3 },
      ],
      monthly: [
        { scope: "corpus", subject: "c", month: jan, source: "", amount: 7 },
        { scope: "org", subject: "", month: jan, source: "", amount: 7 },
        { scope: "org", subject: "", month: jan + 1, source: "", amount: 2 },
        { scope: "user", subject: "u", month: jan, source: "", amount: 3 },
      ],
    };
    expect(snapshot()).toEqual(want);
    const sql = migrations.find((m) => m.id === "usage-004")!.sql;
    db2.exec(sql.slice(0, sql.indexOf("CREATE TRIGGER")));
    expect(snapshot()).toEqual(want);
    now = ms("2028-03-01T00:00:00Z");
    expect(usageService(db2, clock).organization("o", "Month").series.slice(-2).map((b) => b.posts.created)).toEqual([7, 2]);
  } finally {
    db2.close();
    rmSync(own, { recursive: true, force: true });
  }
});
