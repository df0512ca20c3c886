import { AppError, badRequest } from "../http/errors.ts";
import { fourDigitYear, parseTime } from "../store/time.ts";

export const MAX_TAGS = 32;
export const MAX_TAG_LENGTH = 64;

/**
 * Tags as stored: each trimmed, blanks dropped, duplicates collapsed (first occurrence keeps
 * its place). The limits apply to the result, so sending a tag twice never tips a list over 32.
 */
export function normalizeTags(tags: string[], field = "tags"): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of tags.entries()) {
    const t = raw.trim();
    if (!t || seen.has(t)) continue;
    const length = [...t].length;
    if (length > MAX_TAG_LENGTH) throw badRequest(`Invalid body field '${field}[${i}]': must be at most ${MAX_TAG_LENGTH} characters after trimming (got ${length})`);
    seen.add(t);
    out.push(t);
  }
  if (out.length > MAX_TAGS) throw badRequest(`Invalid body field '${field}': must hold at most ${MAX_TAGS} tags after dropping blanks and duplicates (got ${out.length})`);
  return out;
}

/** An ISO-8601 timestamp field → epoch ms (UTC when it names no zone, parseTime); null clears; absent stays undefined. */
export function timeField(v: string | null | undefined, field: string, where = "body field"): number | null | undefined {
  if (v === undefined || v === null) return v;
  const ms = parseTime(v);
  if (ms === undefined) throw new AppError("BAD_REQUEST", `Invalid ${where} '${field}': expected an ISO-8601 timestamp, got "${v.slice(0, 64)}"`);
  // A stored value is answered in UTC: "0000-01-01T00:00:00+01:00" is an instant of year -1,
  // which only a 6-digit signed year can write, and the published date-time has four. A search
  // bound is never answered, so it may lie outside.
  if (where === "body field" && !fourDigitYear(ms)) {
    throw new AppError("BAD_REQUEST", `Invalid ${where} '${field}': must lie between 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in UTC, got "${v.slice(0, 64)}"`);
  }
  return ms;
}

/** `{}` (or null) means the platform default, stored as NULL; anything else is kept verbatim. */
export function chunkColumn(chunk: Record<string, unknown> | null | undefined): string | null {
  return chunk == null || Object.keys(chunk).length === 0 ? null : JSON.stringify(chunk);
}

/**
 * A filename as the search compares it (filename_lc): lower case, with the final sigma read as
 * σ. toLowerCase writes Σ as ς at the end of a word and as σ elsewhere, so the case-insensitive
 * prefix "ΠΡΟΣ" (read "προς") missed "ΠΡΟΣΦΟΡΑ.pdf" ("προσφορα.pdf"), and "οδοσ" missed "ΟΔΟΣ.pdf".
 * Migration documents-011 folds the names stored before.
 */
export const filenameKey = (s: string): string => s.toLowerCase().replaceAll("ς", "σ");
