import type { Db } from "../store/db.ts";
import { iso, type Clock } from "../store/time.ts";
import { notFound } from "../http/errors.ts";
import { bucketStart, dayOf, DAY_MS, monthOf, reportRange, type Timeframe } from "./buckets.ts";
import type { UsageScope } from "./record.ts";

export interface Counts {
  created: number;
  removed: number;
}
/** Top-level counter: `total` = lifetime created (soft-deleted included), `live` = lifetime created − removed. */
export interface Counter extends Counts {
  total: number;
  live: number;
}
export interface Bucket {
  from: string;
  to: string;
  tokens: number;
  corpora?: Counts;
  sessions: Counts;
  posts: Counts;
  storage: Counts;
}
export interface UsageReport {
  timeframe: Timeframe;
  from: string;
  to: string;
  organizationId: string;
  timestamp: string;
  tokens: { total: number; inPeriod: number };
  corpora: Counter | null;
  sessions: Counter;
  posts: Counter;
  storage: Counter;
  series: Bucket[];
}

type Counted = "corpora" | "sessions" | "posts" | "storage";
const COUNTED: Counted[] = ["corpora", "sessions", "posts", "storage"];

interface Row {
  metric: string;
  op: string;
  source: string | null;
  amount: number;
}

/** Tallies of one bucket (or of a lifetime) before rendering. */
class Tally {
  tokens = 0;
  c: Record<Counted, Counts> = {
    corpora: { created: 0, removed: 0 },
    sessions: { created: 0, removed: 0 },
    posts: { created: 0, removed: 0 },
    storage: { created: 0, removed: 0 },
  };
  /** Scope rules (spec, Usage rule 7 and the `corpora` row): what a row counts for, if anything. */
  add(scope: UsageScope, r: Row, sign = 1) {
    const n = sign * r.amount;
    if (r.metric === "tokens") {
      if (scope === "corpus" && r.source !== "post") return;
      if (r.op !== "removed") this.tokens += n;
      return;
    }
    if (r.metric === "corpora" && scope !== "org") return;
    const c = this.c[r.metric as Counted];
    if (!c) return;
    if (r.op === "created") c.created += n;
    else if (r.op === "removed") c.removed += n;
  }
}

// Events of today recorded after the report's instant (normally none: a write racing the report,
// or a test clock). `metric IN (...)` lets SQLite walk usage_org_at(org_id, metric, at) as five
// short ranges.
const LATER_TODAY_SQL = (extra: string) => `
  SELECT metric, op, source, sum(amount) AS amount FROM usage_events
  WHERE org_id = ? AND metric IN ('corpora', 'sessions', 'posts', 'storage', 'tokens') AND at > ? AND at < ? ${extra}
  GROUP BY metric, op, source`;

type PeriodRow = Row & { period: number };
const ROLLUP = {
  day: { table: "usage_daily", key: "day" },
  month: { table: "usage_monthly", key: "month" },
} as const;

/**
 * Usage reports, read from the rollups so their cost does not grow with the number of events:
 * Day and Week buckets sum daily rows, Month and Year buckets monthly rows (every edge is a UTC
 * midnight, and Month/Year edges are 1sts of months). Lifetime totals as of `timestamp` are the
 * monthly rows of past months plus the daily rows of this month up to today, minus today's
 * events recorded after `timestamp`: each event is counted once, none after the instant of the
 * report, and the cost does not grow with the day's volume either.
 */
export function usageService(db: Db, clock: Clock) {
  const q = (grain: keyof typeof ROLLUP, where: string, select: string, tail = "") =>
    db.query<PeriodRow, [string, string, string, number, number]>(
      `SELECT ${select} FROM ${ROLLUP[grain].table} WHERE org_id = ? AND scope = ? AND subject = ? AND ${where} ${tail}`.replaceAll(
        "$p",
        ROLLUP[grain].key,
      ),
    );
  const rangeRows = {
    day: q("day", "$p >= ? AND $p < ?", "$p AS period, metric, op, source, amount", "ORDER BY $p"),
    month: q("month", "$p >= ? AND $p < ?", "$p AS period, metric, op, source, amount", "ORDER BY $p"),
  };
  const sumRows = {
    day: q("day", "$p >= ? AND $p < ?", "metric, op, source, sum(amount) AS amount", "GROUP BY metric, op, source"),
    month: q("month", "$p >= ? AND $p < ?", "metric, op, source, sum(amount) AS amount", "GROUP BY metric, op, source"),
  };
  const laterToday: Record<UsageScope, ReturnType<typeof db.query<Row, any>>> = {
    org: db.query(LATER_TODAY_SQL("")),
    user: db.query(LATER_TODAY_SQL("AND user_id = ?")),
    corpus: db.query(LATER_TODAY_SQL("AND corpus_id = ?")),
  };
  const norm = (r: Row): Row => (r.source ? r : { ...r, source: null });

  function report(orgId: string, scope: UsageScope, subject: string, timeframe: Timeframe): UsageReport {
    // At a bucket's very first millisecond `to` would equal `timestamp`, which the spec wants
    // strictly earlier: such a report is made as of the next millisecond, totals included.
    const t = clock.now();
    const now = bucketStart(timeframe, t) === t ? t + 1 : t;
    const { from, to, edges } = reportRange(timeframe, now);
    const grain = timeframe === "Day" || timeframe === "Week" ? "day" : "month";
    const periods = edges.map(grain === "day" ? dayOf : monthOf);
    const buckets = periods.slice(1).map(() => new Tally());
    let i = 0;
    for (const r of rangeRows[grain].all(orgId, scope, subject, periods[0]!, periods.at(-1)!)) {
      while (r.period >= periods[i + 1]!) i++;
      buckets[i]!.add(scope, norm(r));
    }

    const today = dayOf(now);
    const life = new Tally();
    for (const r of sumRows.month.all(orgId, scope, subject, Number.MIN_SAFE_INTEGER, monthOf(now))) life.add(scope, norm(r));
    for (const r of sumRows.day.all(orgId, scope, subject, dayOf(bucketStart("Month", now)), today + 1)) life.add(scope, norm(r));
    const tomorrow = (today + 1) * DAY_MS;
    const params = scope === "org" ? [orgId, now, tomorrow] : [orgId, now, tomorrow, subject];
    for (const r of laterToday[scope].all(...params)) life.add(scope, r, -1);

    const period = new Tally();
    for (const b of buckets) {
      period.tokens += b.tokens;
      for (const k of COUNTED) {
        period.c[k].created += b.c[k].created;
        period.c[k].removed += b.c[k].removed;
      }
    }
    const counter = (k: Counted): Counter => ({
      total: life.c[k].created,
      live: life.c[k].created - life.c[k].removed,
      created: period.c[k].created,
      removed: period.c[k].removed,
    });
    const withCorpora = scope === "org";
    return {
      timeframe,
      from: iso(from),
      to: iso(to),
      organizationId: orgId,
      timestamp: iso(now),
      tokens: { total: life.tokens, inPeriod: period.tokens },
      corpora: withCorpora ? counter("corpora") : null,
      sessions: counter("sessions"),
      posts: counter("posts"),
      storage: counter("storage"),
      series: buckets.map((b, j) => ({
        from: iso(edges[j]!),
        to: iso(edges[j + 1]!),
        tokens: b.tokens,
        ...(withCorpora ? { corpora: b.c.corpora } : {}),
        sessions: b.c.sessions,
        posts: b.c.posts,
        storage: b.c.storage,
      })),
    };
  }

  const corpusOfOrg = db.query<{ one: number }, [string, string]>("SELECT 1 AS one FROM corpora WHERE org_id = ? AND id = ?");

  return {
    organization: (orgId: string, tf: Timeframe) => report(orgId, "org", "", tf),
    /** A user id is only matched inside the organization; one without events gets zeros. */
    user: (orgId: string, userId: string, tf: Timeframe) => report(orgId, "user", userId, tf),
    /** Soft-deleted corpora keep their report; another organization's corpus is 404. */
    corpus(orgId: string, corpusId: string, tf: Timeframe) {
      if (!corpusOfOrg.get(orgId, corpusId)) throw notFound("Corpus");
      return report(orgId, "corpus", corpusId, tf);
    },
  };
}
export type UsageService = ReturnType<typeof usageService>;
