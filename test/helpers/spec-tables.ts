/**
 * The contract's own tables, read from ../shared/SPEC.md (not copied into tests): endpoint rows
 * with their Input cells, the deprecated operations, parameter tables, field types and
 * enumerations. The OpenAPI tests (test/foundation/openapi-spec-*.test.ts) compare the
 * published document against these.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./server.ts";

export const SPEC = readFileSync(join(ROOT, "../shared/SPEC.md"), "utf8");
export const ticks = (s: string) => [...s.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
export const fieldNames = (s: string) => ticks(s).filter((x) => /^[a-z][A-Za-z]*$/.test(x));

/** "GET /v1/doc/q" → the Input cell of its row in an endpoint table. */
export const rows = new Map<string, string>();
for (const line of SPEC.split("\n")) {
  const cells = line.split("|").map((c) => c.trim());
  for (const ep of ticks(cells[1] ?? "")) if (/^(GET|POST|PUT|PATCH|DELETE) \/v1\//.test(ep)) rows.set(ep, cells[2] ?? "");
}
const versioning = SPEC.slice(SPEC.indexOf("Current deprecations"), SPEC.indexOf("5. Behaviour changes"));
// What follows "in favour of" is the replacement, not a deprecated operation.
export const deprecated = new Set(versioning.split("\n").flatMap((l) => ticks(l.split(" in favour of ")[0]!)).filter((x) => rows.has(x)));

/** A "`GET /v1/x` parameters" table: parameter names, and those whose rule says Required. */
function paramTable(ep: string): { names: string[]; required: string[]; types?: Record<string, string> } {
  const at = SPEC.indexOf("`" + ep + "` parameters");
  const table = SPEC.slice(at).split("\n\n")[1]!.split("\n").slice(2);
  const cells = table.map((l) => l.split("|").map((c) => c.trim()));
  // A rule "`true` includes…" makes a boolean, "1-based" a number of a page.
  const types = Object.fromEntries(cells.flatMap((c) => fieldNames(c[1]!).map((n) => [n, /^`true`/.test(c[2]!) ? "boolean" : /^1-based/.test(c[2]!) ? "integer" : ""])).filter(([, t]) => t));
  return { names: cells.flatMap((c) => fieldNames(c[1]!)), required: cells.filter((c) => /^Required/.test(c[2]!)).flatMap((c) => fieldNames(c[1]!)), types };
}

/** What the spec says of an endpoint's inputs. Body fields the spec says are ignored are not inputs. */
export function inputs(ep: string): { names: string[]; required: string[]; types?: Record<string, string> } {
  const cell = rows.get(ep)!;
  if (cell.startsWith("See below")) return paramTable(ep);
  const text = cell.replace(/`[^`]*`(, `[^`]*`)* are ignored.*$/, "").replace(/Requires .*$/, "");
  const named = fieldNames(text).filter((n) => !["reset"].includes(n) || ep.startsWith("PATCH /v1/agent/"));
  const head = text.includes("; optional") ? fieldNames(text.split("; optional")[0]!) : [];
  const required = [...head, ...[...text.matchAll(/`(\w+)` \(required/g)].map((m) => m[1]!)];
  if (text.startsWith("Same fields")) named.push(...inputs("POST /v1/agent/").names);
  return { names: named.filter((n) => !/^(token)$/.test(n) || !ep.includes("{token}")), required };
}

/** Field types from the spec's resource tables and conventions, in JSON-schema words. */
export const TYPES: Record<string, string> = { pageSize: "integer", pageIndex: "integer", scope: "array", ttl: "integer", corpusIds: "array" };
for (const line of SPEC.split("\n")) {
  const m = /^\| `(\w+)` \| (uuid|string|enum|integer|int|bool|number|timestamp|object|array of \w+) \|/.exec(line);
  if (m) TYPES[m[1]!] ??= ({ uuid: "string", enum: "string", int: "integer", bool: "boolean", timestamp: "string" } as Record<string, string>)[m[2]!] ?? m[2]!.split(" ")[0]!;
}

/** Enumerations as the spec lists them, by field name. */
export function specEnums(): Record<string, string[]> {
  const values = (s: string) => ticks(s).filter((x) => /^[A-Z][A-Za-z_]+$/.test(x));
  const out: Record<string, string[]> = {};
  for (const line of SPEC.split("\n")) {
    const c = line.split("|").map((x) => x.trim());
    const names = fieldNames(c[1] ?? "");
    // "| `thinkingMode` | enum | `LOW` or `HIGH`. …" and "| `sort` | `CREATED_AT`, … |": the first sentence only.
    const rule = (c[2] === "enum" ? c[3] : c[2])?.split(". ")[0] ?? "";
    if (names.length === 1 && values(rule).length >= 2) out[names[0]!] = values(rule);
  }
  // "`tagsMatch` is `ANY` (default, …) or `ALL` (…)", in a row naming two parameters.
  for (const m of SPEC.matchAll(/`(\w+)` is (`[A-Z]\w*`[^`]*or `[A-Z]\w*`)/g)) out[m[1]!] = values(m[2]!);
  out.status = values(/^Values: (.*)$/m.exec(SPEC)![1]!);
  out.timeframe = [...SPEC.matchAll(/^\| `(\w+)` \| (one day|ISO week|calendar month|calendar year) \|/gm)].map((m) => m[1]!);
  return out;
}
