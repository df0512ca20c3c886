/**
 * Calendar arithmetic of usage reports, pure and in UTC. Every bucket edge is a UTC midnight,
 * so reports can sum whole days (see usage_daily) whatever the timeframe.
 */
export const TIMEFRAMES = ["Day", "Week", "Month", "Year"] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

/** Completed buckets reported per timeframe (spec, Limits). */
export const BUCKETS: Record<Timeframe, number> = { Day: 30, Week: 12, Month: 12, Year: 5 };

/** Documented default when `timeframe` is omitted. */
export const DEFAULT_TIMEFRAME: Timeframe = "Month";

export const DAY_MS = 86_400_000;

export const isTimeframe = (s: unknown): s is Timeframe => typeof s === "string" && (TIMEFRAMES as readonly string[]).includes(s);

/** Day number since 1970-01-01 (UTC) of an instant; negative before the epoch. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** UTC month number of an instant: year * 12 + zero-based month (the key of usage_monthly). */
export function monthOf(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** Start of the bucket containing `ms`. */
export function bucketStart(tf: Timeframe, ms: number): number {
  const day = dayOf(ms);
  switch (tf) {
    case "Day":
      return day * DAY_MS;
    case "Week": {
      // 1970-01-01 was a Thursday: (day + 3) mod 7 counts days since the previous Monday.
      const sinceMonday = (((day + 3) % 7) + 7) % 7;
      return (day - sinceMonday) * DAY_MS;
    }
    case "Month": {
      const d = new Date(ms);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
    case "Year":
      return Date.UTC(new Date(ms).getUTCFullYear(), 0, 1);
  }
}

/** Start of the bucket `n` buckets after (negative: before) the bucket starting at `start`. */
export function addBuckets(tf: Timeframe, start: number, n: number): number {
  switch (tf) {
    case "Day":
      return start + n * DAY_MS;
    case "Week":
      return start + n * 7 * DAY_MS;
    case "Month": {
      const d = new Date(start);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
    }
    case "Year":
      return Date.UTC(new Date(start).getUTCFullYear() + n, 0, 1);
  }
}

export interface ReportRange {
  /** Start of the oldest reported bucket (inclusive). */
  from: number;
  /** Start of the bucket in progress: exclusive end of the newest completed bucket. */
  to: number;
  /** BUCKETS[tf] + 1 ascending edges; bucket i is [edges[i], edges[i+1]). */
  edges: number[];
}

/** The completed buckets reported at instant `now`, oldest first. */
export function reportRange(tf: Timeframe, now: number): ReportRange {
  const to = bucketStart(tf, now);
  const n = BUCKETS[tf];
  const edges: number[] = [];
  for (let i = n; i >= 0; i--) edges.push(addBuckets(tf, to, -i));
  return { from: edges[0]!, to, edges };
}

/** ISO-8601 week-numbering year and week of an instant (used by tests and labels). */
export function isoWeek(ms: number): { year: number; week: number } {
  const monday = bucketStart("Week", ms);
  const thursday = new Date(monday + 3 * DAY_MS); // the week belongs to the year of its Thursday
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return { year, week };
}
