import { badRequest } from "./errors.ts";
import { describe } from "./validation-message.ts";

/**
 * Two mistakes in a query string that Elysia passes over without a word:
 * - a parameter that takes one value given twice (`?pageSize=10&pageSize=20`): the last was kept,
 *   so a client whose URL builder appended instead of replacing got an answer to a question it
 *   did not ask. A parameter its route's schema types as an array (tags, pages, status) may
 *   repeat; any other the schema declares may not.
 * - a value that is not percent-encoded UTF-8 (`body=%FF%FE`): it was kept as the raw text, so
 *   a question was stored as "%FF%FE".
 * - a number not written in decimal: JavaScript's Number() read `pageIndex=0x10` as 16 and
 *   `1e1` as 10, `Infinity` as a number too large.
 * Both answer 400 naming the parameter. Parameters no schema declares are ignored, as they are
 * when well formed.
 *
 * An optional parameter sent empty (`?lang=`, `?pageSize=`) counts as absent, the rule the spec
 * states for the session search's `userId`: forms and URL builders send empty fields, and one
 * rule for every parameter beats some ignored and some refused. A required one sent empty is
 * refused as missing, or by its own rule. The metadata filter's `key` and `value` are data, not
 * settings: `value=` searches for the empty string, so they are kept as sent.
 */
export type QueryRules = (method: string, route: string) => RouteQuery | undefined;

export interface RouteQuery {
  declared: ReadonlySet<string>;
  single: ReadonlySet<string>;
  /** Parameters the schema requires, and the metadata filter's: sent empty, they are kept (and judged) rather than dropped. */
  keepEmpty: ReadonlySet<string>;
  /** Numeric parameters, with their schema (its rule words the refusal). */
  numeric: ReadonlyMap<string, Schema>;
}

interface RouteLike {
  method: string;
  path: string;
  hooks?: { query?: unknown };
}

type Schema = { type?: string; anyOf?: Schema[]; properties?: Record<string, Schema>; required?: string[] };

const isArray = (s: Schema): boolean => s.type === "array" || (s.anyOf?.some(isArray) ?? false);
const isNumeric = (s: Schema): boolean => s.type === "integer" || s.type === "number" || (s.anyOf?.some(isNumeric) ?? false);
const DECIMAL = /^[+-]?\d+(\.\d+)?$/;
const EMPTY_IS_DATA = new Set(["key", "value"]);

/** Builds the lookup from the app's routes (read on first use: the route table is complete once the app is built). */
export function queryRules(routes: () => readonly RouteLike[]): QueryRules {
  let index: Map<string, RouteQuery> | undefined;
  return (method, route) => {
    index ??= new Map(
      routes().flatMap((r) => {
        const schema = r.hooks?.query as Schema | undefined;
        const props = schema?.properties;
        if (!props) return [];
        const names = Object.keys(props);
        const single = names.filter((k) => !isArray(props[k]!));
        const numeric = new Map(names.filter((k) => isNumeric(props[k]!)).map((k) => [k, props[k]!] as const));
        return [[`${r.method} ${r.path}`, { declared: new Set(names), single: new Set(single), numeric, keepEmpty: new Set([...(schema.required ?? []), ...EMPTY_IS_DATA]) }] as const];
      }),
    );
    return index.get(`${method} ${route}`);
  };
}

const decode = (s: string): string | null => {
  try {
    return decodeURIComponent(s.replaceAll("+", " "));
  } catch {
    return null;
  }
};

/** Throws 400 naming the first declared parameter that repeats without being repeatable, or whose value does not decode. */
export function checkQuery(url: string, rules: RouteQuery | undefined): void {
  if (!rules) return;
  const q = url.indexOf("?");
  // The common case: no query, or one parameter with nothing to decode and no number.
  if (q < 0 || (url.indexOf("&", q) < 0 && url.indexOf("%", q) < 0 && rules.numeric.size === 0)) return;
  const seen = new Set<string>();
  for (const pair of url.slice(q + 1).split("&")) {
    const eq = pair.indexOf("=");
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    if (key === null || !rules.declared.has(key)) continue;
    const value = eq < 0 ? "" : decode(pair.slice(eq + 1));
    if (value === null) throw badRequest(`Invalid query parameter '${key}': not valid percent-encoded UTF-8 (got "${pair.slice(eq + 1, eq + 41)}")`);
    if (value === "" && !rules.keepEmpty.has(key)) continue; // absent (dropEmpty removes it from the parsed query)
    const numeric = rules.numeric.get(key);
    if (numeric && !DECIMAL.test(value)) {
      // "in decimal digits" only for what reads as a number in another notation ("abc" is just wrong).
      const notation = value.trim() !== "" && !Number.isNaN(Number(value)) ? " in decimal digits" : "";
      throw badRequest(`Invalid query parameter '${key}': must be ${describe(numeric as never)}${notation} (got ${JSON.stringify(value.slice(0, 40))})`);
    }
    if (!rules.single.has(key)) continue;
    if (seen.has(key)) throw badRequest(`Invalid query parameter '${key}': given more than once; it takes one value`);
    seen.add(key);
  }
}

/** Removes the optional parameters sent empty from the parsed query, so they read as absent. */
export function dropEmpty(query: Record<string, unknown> | undefined, rules: RouteQuery | undefined): void {
  if (!query || !rules) return;
  for (const key of Object.keys(query)) {
    if (rules.keepEmpty.has(key) || !rules.declared.has(key)) continue;
    const v = query[key];
    if (v === "") delete query[key];
    else if (Array.isArray(v)) {
      const kept = v.filter((x) => x !== "");
      if (kept.length === 0) delete query[key];
      else if (kept.length !== v.length) query[key] = kept;
    }
  }
}
