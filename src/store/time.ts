/** The service's clock. Injected everywhere time matters so tests can place events exactly. */
export interface Clock {
  now(): number; // epoch milliseconds
}
export const systemClock: Clock = { now: () => Date.now() };

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrUndef = (ms: number | null | undefined): string | undefined => (ms == null ? undefined : iso(ms));

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

const FIRST_MS = Date.parse("0000-01-01T00:00:00.000Z");
const LAST_MS = Date.parse("9999-12-31T23:59:59.999Z");
/** True when iso(ms) writes a four-digit year, as RFC 3339 (the published date-time) requires. */
export const fourDigitYear = (ms: number): boolean => ms >= FIRST_MS && ms <= LAST_MS;

/**
 * toISOString's form for an instant outside years 0000-9999 ("+010000-01-01T04:00:00.000Z",
 * "-000001-12-31T23:00:00.000Z"). Older versions stored docCreate/docUpdate there from a
 * four-digit year with an offset; such a row must still read back rather than fail its
 * response schema.
 */
const EXPANDED = /^[+-]\d{6}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The date-time check of every schema: parseTime's shape, or the expanded year iso() writes. */
export const dateTimeShaped = (s: string): boolean => ISO.test(s) || EXPANDED.test(s);

/**
 * Parses an ISO-8601 timestamp; returns undefined when it is not one. Every field must be in
 * range: Date.parse alone would carry 2024-02-30 over to March 1st instead of refusing it. A
 * time without a zone is UTC, as every timestamp of the spec is: Date.parse reads it in the
 * server's time zone (and a date alone as UTC), so a value stored or a search window would move
 * with the TZ the server was started in.
 */
export function parseTime(s: string): number | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0] = m.slice(1).map((v) => (v === undefined ? undefined : Number(v)));
  const leap = y! % 4 === 0 && (y! % 100 !== 0 || y! % 400 === 0);
  const daysInMonth = mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo!) ? 30 : 31;
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > daysInMonth || h > 23 || mi > 59 || sec > 59 || oh > 23 || om > 59) return undefined;
  const zoneless = m[4] !== undefined && m[7] === undefined && !s.endsWith("Z");
  const ms = Date.parse(zoneless ? `${s.replace(" ", "T")}Z` : s);
  return Number.isFinite(ms) ? ms : undefined;
}
