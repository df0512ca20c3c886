import { t } from "elysia";
import { Kind, TypeRegistry } from "@sinclair/typebox";
import { GetErrorFunction, SetErrorFunction, ValueErrorType } from "@sinclair/typebox/errors";
import { badRequest } from "./errors.ts";

/**
 * Deepest nesting accepted in JSON a client hands over (metadata, chunk and session `json`
 * fragments), the root object counting as level 1. SQLite's JSON functions refuse anything
 * nested over 1000 levels as malformed, so such a value, once stored, made every metadata
 * search over it fail or skip it; 64 is far beyond any real metadata.
 */
export const MAX_JSON_DEPTH = 64;

/** True when no object or array in `v` sits more than `max` levels deep. Stops at the limit, so its recursion stays shallow. */
export function withinDepth(v: unknown, max = MAX_JSON_DEPTH): boolean {
  if (v === null || typeof v !== "object") return true;
  if (max < 1) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (!withinDepth(x, max - 1)) return false;
  } else {
    for (const k in v) if (!withinDepth((v as Record<string, unknown>)[k], max - 1)) return false;
  }
  return true;
}

/**
 * For services, which store what the route schemas already checked (and take values the schemas
 * do not see, such as a search's `json` text): 400 naming the field when `v` is nested too deep.
 */
export function requireDepth(v: unknown, field: string): void {
  if (!withinDepth(v)) throw badRequest(`Invalid ${field}: must be nested at most ${MAX_JSON_DEPTH} levels deep`);
}

/**
 * For services, as requireDepth (call it after): 400 naming the field and the place when `v`
 * holds a number beyond JSON's range, in the words the metadata schemas use. A search's `json`
 * fragment with 1e400 matched nothing and came back in `filters` with null in its place.
 */
export function requireFinite(v: unknown, field: string): void {
  const path = nonFinitePath(v);
  if (path) throw badRequest(`Invalid ${field}: ${notFiniteRule(path)}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Largest metadata object a client may store, counted in characters of its JSON text. Metadata
 * is returned with every item of a listing: a 15 MB object was accepted (only the 16 MiB body
 * limit applied) and then made each page of 25 corpora hundreds of megabytes.
 */
export const MAX_METADATA_CHARS = 65_536;

type JsonObjectSchema = { maxDepth?: number; maxChars?: number; finite?: boolean };
const tooLarge = (s: JsonObjectSchema, v: unknown) => s.maxChars !== undefined && JSON.stringify(v).length > s.maxChars;

/**
 * The path to the first number in `v` that JSON cannot hold, innermost step first; null when
 * there is none. JSON.parse reads 1e400 as Infinity, and JSON.stringify writes Infinity as
 * null: such metadata was stored as null with a 200, a value the client never sent and no
 * filter for 1e400 finds. Called after the depth check, so its recursion stays shallow; the
 * path is only built on the way out of a refusal, since every metadata write passes through.
 */
function nonFinitePath(v: unknown): (string | number)[] | null {
  if (typeof v === "number") return Number.isFinite(v) ? null : [];
  if (v === null || typeof v !== "object") return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const path = nonFinitePath(v[i]);
      if (path) return path.push(i), path;
    }
  } else {
    for (const k in v) {
      const path = nonFinitePath((v as Record<string, unknown>)[k]);
      if (path) return path.push(k), path;
    }
  }
  return null;
}
const allFinite = (v: unknown) => nonFinitePath(v) === null;

/** Where the number sits ("b[0]"), for the refusal. */
const pathText = (path: (string | number)[]) =>
  path.reduceRight<string>((at, step) => (typeof step === "number" ? `${at}[${step}]` : at ? `${at}.${step}` : step), "");
const notFiniteRule = (path: (string | number)[]) =>
  `must hold numbers a JSON number can represent (the one at ${pathText(path).slice(0, 80)} is beyond ±1.8e308)`;

// Elysia coerces arrays and strings into records; metadata must be a real JSON object, so it
// gets its own kind that no coercion touches. A schema with `maxDepth` also bounds the nesting
// (checked first: it stops early, where the size needs the whole text), `maxChars` the size.
TypeRegistry.Set(
  "JsonObject",
  (s: JsonObjectSchema, v) => isObject(v) && (s.maxDepth === undefined || withinDepth(v, s.maxDepth)) && (!s.finite || allFinite(v)) && !tooLarge(s, v),
);

// The error handler turns this into "Invalid body field 'metadata': …": say which rule failed.
const defaultMessage = GetErrorFunction();
SetErrorFunction((e) =>
  e.errorType === ValueErrorType.Kind && e.schema[Kind] === "JsonObject"
    ? !isObject(e.value)
      ? "must be a JSON object"
      : (e.schema as JsonObjectSchema).maxDepth !== undefined && !withinDepth(e.value, (e.schema as JsonObjectSchema).maxDepth)
        ? `must be nested at most ${(e.schema as JsonObjectSchema).maxDepth} levels deep`
        : (e.schema as JsonObjectSchema).finite && !allFinite(e.value)
          ? notFiniteRule(nonFinitePath(e.value)!)
          : `must be at most ${(e.schema as JsonObjectSchema).maxChars} characters as JSON`
    : defaultMessage(e),
);

/** The spec's paging parameters; out of range → 400 naming the parameter. */
export const PageQuery = {
  pageSize: t.Optional(t.Integer({ title: "pageSize", minimum: 1, maximum: 100, default: 25, description: "1 to 100, default 25" })),
  pageIndex: t.Optional(t.Integer({ title: "pageIndex", minimum: 0, default: 0, description: "zero-based, default 0" })),
};

export interface Paging {
  pageSize: number;
  pageIndex: number;
}

export const paging = (q: { pageSize?: number; pageIndex?: number }): Paging => ({
  pageSize: q.pageSize ?? 25,
  pageIndex: q.pageIndex ?? 0,
});

/**
 * Rows to skip for a page. Any pageIndex of 0 or more is valid, however large: past the last
 * row the page is empty. Clamped so the product stays an exact integer SQLite accepts as OFFSET
 * (a float such as 1e300 would be refused: "datatype mismatch").
 */
export const offsetOf = (p: Paging): number => Math.min(p.pageIndex * p.pageSize, Number.MAX_SAFE_INTEGER);

/**
 * A JSON object from a client, nested at most `maxDepth` levels (null: unbounded, for values read
 * back, see StoredMetadata). `finite`: numbers beyond JSON's range are refused rather than stored
 * as null (metadata; a document's `chunk` object is the chunker's to judge, spec).
 */
export const JsonObject = (description = "free-form JSON object", maxDepth: number | null = MAX_JSON_DEPTH, finite = false) =>
  t.Unsafe<Record<string, unknown>>({
    [Kind]: "JsonObject",
    type: "object",
    additionalProperties: true,
    ...(maxDepth === null
      ? { description }
      : { maxDepth, maxChars: MAX_METADATA_CHARS, description: `${description}, nested at most ${maxDepth} levels deep, at most ${MAX_METADATA_CHARS} characters as JSON` }),
    ...(finite ? { finite } : {}),
    // Set, Elysia skips serialising the refused value into its error text: for JSON nested
    // thousands of levels that alone took seconds and overflowed the stack (a 500).
    error: maxDepth === null ? "must be a JSON object" : `must be a JSON object nested at most ${maxDepth} levels deep and at most ${MAX_METADATA_CHARS} characters as JSON`,
  });
export const Metadata = JsonObject(undefined, MAX_JSON_DEPTH, true);
/**
 * Metadata in responses. Rows stored before the depth limit may be deeper; they are still
 * served (responses are validated too), only new writes are refused.
 */
export const StoredMetadata = JsonObject("free-form JSON object", null);

/**
 * A timestamp, sent or answered: published as `date-time` so generated clients type it as one.
 * The check behind the format is parseTime's (typebox-setup.ts): a time without a zone is UTC
 * and a date alone is midnight, as the server took them before the format was published.
 */
export const Timestamp = (description?: string) => t.String({ format: "date-time", ...(description ? { description } : {}) });

export const Ack = t.Object({ timestamp: Timestamp(), message: t.String() });
export const ack = (message: string, now: number) => ({ timestamp: new Date(now).toISOString(), message });

/**
 * A name people read (corpus, agent, file name, token issuer): 1 to `max` characters, not only
 * blanks, and no control characters. A NUL or a newline in a name breaks every listing that shows
 * it and the Content-Disposition of a download; a name of spaces reads as none.
 */
/** Longest user id: a JWT `sub`, an access token's `userId`, a usage report's path. */
export const USER_ID_MAX = 256;

const DISPLAY_PATTERN = "^(?=[\\s\\S]*\\S)[^\\u0000-\\u001F\\u007F]*$";
const DISPLAY_RE = new RegExp(DISPLAY_PATTERN);
export const displayNameRule = (max: number) => `must be 1 to ${max} characters, not only blanks, without control characters`;
/** The DisplayName rule for values that come from elsewhere than a request schema (a JWT's `sub`). */
export const isDisplayName = (s: string, max: number) => s.length <= max && DISPLAY_RE.test(s);

export const DisplayName = (max: number, description?: string) =>
  t.String({
    minLength: 1,
    maxLength: max,
    pattern: DISPLAY_PATTERN,
    error: displayNameRule(max),
    ...(description ? { description } : {}),
  });

/** The language part of LangCode; a path segment (the first-generation widget's) cannot be empty. */
export const LANG_TAG = "[A-Za-z]{2,3}([_-][A-Za-z0-9]{1,8})*";

/**
 * A language as the spec means it (ISO 639), with an optional region or script ("en", "pt-BR",
 * "zh_Hant"); empty means "not given" (detected). `<b>` or `123` was stored and then served as a
 * post's or a document's language, and filtered on exactly.
 */
export const LangCode = (description: string) =>
  t.String({
    maxLength: 35,
    pattern: `^(${LANG_TAG})?$`,
    "x-rule": "an ISO 639 language code such as en or pt-BR",
    description,
  });

/** The language subtag in lower case, the rest as given (`EN-US` → `en-US`), as detection writes it; empty → undefined. */
export function normalLang(lang: string | null | undefined): string | undefined {
  const v = lang?.trim();
  if (!v) return undefined;
  const cut = v.search(/[_-]/);
  return cut < 0 ? v.toLowerCase() : v.slice(0, cut).toLowerCase() + v.slice(cut);
}
