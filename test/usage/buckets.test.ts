import { describe, expect, test } from "bun:test";
import { addBuckets, BUCKETS, bucketStart, DAY_MS, isoWeek, reportRange, TIMEFRAMES, type Timeframe } from "../../src/usage/buckets.ts";

const ms = (s: string) => Date.parse(s);
const z = (d: string) => `${d}T00:00:00.000Z`;

// Expected values computed independently (GNU date), not with the code under test.
const RANGES: { tf: Timeframe; now: string; to: string; from: string; why: string }[] = [
  { tf: "Day", now: "2027-01-01T00:00:00.000Z", to: "2027-01-01", from: "2026-12-02", why: "exact midnight starts a new bucket" },
  { tf: "Day", now: "2026-12-31T23:59:59.999Z", to: "2026-12-31", from: "2026-12-01", why: "last millisecond of a day" },
  { tf: "Day", now: "2028-02-29T12:00:00.000Z", to: "2028-02-29", from: "2028-01-30", why: "leap day in progress" },
  { tf: "Day", now: "2028-03-01T00:00:00.000Z", to: "2028-03-01", from: "2028-01-31", why: "range spans the leap day" },
  { tf: "Week", now: "2026-12-31T12:00:00.000Z", to: "2026-12-28", from: "2026-10-05", why: "Thursday of 2026-W53" },
  { tf: "Week", now: "2027-01-01T00:00:00.000Z", to: "2026-12-28", from: "2026-10-05", why: "New Year's Friday stays in 2026-W53" },
  { tf: "Week", now: "2027-01-03T23:59:59.999Z", to: "2026-12-28", from: "2026-10-05", why: "last millisecond of the ISO week" },
  { tf: "Week", now: "2027-01-04T00:00:00.000Z", to: "2027-01-04", from: "2026-10-12", why: "Monday midnight starts 2027-W01" },
  { tf: "Week", now: "2028-02-29T08:00:00.000Z", to: "2028-02-28", from: "2027-12-06", why: "leap day is a Tuesday" },
  { tf: "Month", now: "2028-02-29T23:59:59.999Z", to: "2028-02-01", from: "2027-02-01", why: "last millisecond of a leap February" },
  { tf: "Month", now: "2028-03-01T00:00:00.000Z", to: "2028-03-01", from: "2027-03-01", why: "exact 1st of the month" },
  { tf: "Month", now: "2027-01-01T00:00:00.000Z", to: "2027-01-01", from: "2026-01-01", why: "New Year" },
  { tf: "Month", now: "2026-12-31T23:59:59.999Z", to: "2026-12-01", from: "2025-12-01", why: "New Year's Eve, last millisecond" },
  { tf: "Year", now: "2027-01-01T00:00:00.000Z", to: "2027-01-01", from: "2022-01-01", why: "exact 1st of January" },
  { tf: "Year", now: "2026-12-31T23:59:59.999Z", to: "2026-01-01", from: "2021-01-01", why: "last millisecond of the year" },
  { tf: "Year", now: "2028-02-29T00:00:00.000Z", to: "2028-01-01", from: "2023-01-01", why: "leap day" },
];

describe("reportRange", () => {
  for (const c of RANGES) {
    test(`${c.tf} at ${c.now}: ${c.why}`, () => {
      const r = reportRange(c.tf, ms(c.now));
      expect({ from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString() }).toEqual({ from: z(c.from), to: z(c.to) });
      expect(r.to).toBeLessThanOrEqual(ms(c.now));
    });
  }

  test("month edges of a range crossing a leap February are the 1sts", () => {
    const r = reportRange("Month", ms("2028-03-15T10:00:00Z"));
    expect(r.edges.map((e) => new Date(e).toISOString().slice(0, 10))).toEqual([
      "2027-03-01", "2027-04-01", "2027-05-01", "2027-06-01", "2027-07-01", "2027-08-01", "2027-09-01",
      "2027-10-01", "2027-11-01", "2027-12-01", "2028-01-01", "2028-02-01", "2028-03-01",
    ]);
  });

  test("week edges around a year with 53 ISO weeks are Mondays 7 days apart", () => {
    const r = reportRange("Week", ms("2021-01-05T00:00:00Z"));
    expect(r.edges.slice(-3).map((e) => new Date(e).toISOString().slice(0, 10))).toEqual(["2020-12-21", "2020-12-28", "2021-01-04"]);
  });

  // Invariants over many instants, including the edge instants themselves.
  const instants = ["2020-02-29T00:00:00Z", "2024-12-30T00:00:00Z", "2026-11-22T00:41:00Z", "2099-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"].map(ms);
  for (const tf of TIMEFRAMES) {
    test(`${tf}: ${BUCKETS[tf]} contiguous buckets of whole UTC days, each edge its own bucket start`, () => {
      for (const now of instants) {
        const { edges, from, to } = reportRange(tf, now);
        expect(edges.length).toBe(BUCKETS[tf] + 1);
        expect([edges[0], edges.at(-1)]).toEqual([from, to]);
        for (let i = 0; i < edges.length; i++) {
          expect(Math.abs(edges[i]! % DAY_MS)).toBe(0);
          expect(bucketStart(tf, edges[i]!)).toBe(edges[i]!);
          if (i > 0) {
            expect(edges[i]!).toBeGreaterThan(edges[i - 1]!);
            expect(bucketStart(tf, edges[i]! - 1)).toBe(edges[i - 1]!);
            expect(addBuckets(tf, edges[i - 1]!, 1)).toBe(edges[i]!);
          }
        }
        expect(now - to).toBeGreaterThanOrEqual(0);
        expect(addBuckets(tf, to, 1)).toBeGreaterThan(now);
      }
    });
  }
});

describe("bucketStart", () => {
  const CASES: [Timeframe, string, string][] = [
    ["Day", "2028-02-29T23:59:59.999Z", "2028-02-29"],
    ["Day", "2028-03-01T00:00:00.000Z", "2028-03-01"],
    ["Week", "2027-01-04T00:00:00.000Z", "2027-01-04"],
    ["Week", "2027-01-03T23:59:59.999Z", "2026-12-28"],
    ["Week", "2021-01-03T12:00:00.000Z", "2020-12-28"],
    ["Week", "1970-01-01T00:00:00.000Z", "1969-12-29"],
    ["Month", "2028-02-29T23:59:59.999Z", "2028-02-01"],
    ["Year", "2026-12-31T23:59:59.999Z", "2026-01-01"],
  ];
  for (const [tf, at, want] of CASES) test(`${tf} of ${at}`, () => expect(new Date(bucketStart(tf, ms(at))).toISOString()).toBe(z(want)));
});

describe("isoWeek", () => {
  const CASES: [string, number, number][] = [
    ["2026-12-31", 2026, 53],
    ["2027-01-01", 2026, 53],
    ["2027-01-03", 2026, 53],
    ["2027-01-04", 2027, 1],
    ["2020-12-31", 2020, 53],
    ["2021-01-04", 2021, 1],
    ["2028-02-29", 2028, 9],
  ];
  for (const [d, year, week] of CASES) test(d, () => expect(isoWeek(ms(d))).toEqual({ year, week }));
});
