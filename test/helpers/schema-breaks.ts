/**
 * A small check of a value against a published JSON schema, for answers: types, required
 * fields, enumerations, constants, uuid and date-time formats, `$ref` into the document's
 * components. Says where the value breaks the schema, in words.
 */
import type { Schema } from "./fuzz-world.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);

/** Where `v` breaks `s` ("items[0].status: string expected, got null"); [] when it conforms. */
export function breaks(v: unknown, s: Schema | undefined, at = "", refs: Record<string, Schema> = {}): string[] {
  if (!s) return [];
  if (typeof s.$ref === "string") return breaks(v, refs[s.$ref.split("/").pop()!], at, refs);
  if (Array.isArray(s.anyOf)) {
    const each = s.anyOf.map((m: Schema) => breaks(v, m, at, refs));
    return each.some((e: string[]) => e.length === 0) ? [] : each.flat();
  }
  const types: string[] | undefined = s.type === undefined ? undefined : [s.type].flat();
  const t = typeOf(v);
  if (types && !types.includes(t) && !(t === "integer" && types.includes("number"))) return [`${at || "(body)"}: ${types.join("|")} expected, got ${JSON.stringify(v)?.slice(0, 60)}`];
  const out: string[] = [];
  if (s.enum && !s.enum.includes(v)) out.push(`${at}: one of ${s.enum.join(", ")} expected, got ${JSON.stringify(v)}`);
  if ("const" in s && v !== s.const) out.push(`${at}: ${JSON.stringify(s.const)} expected, got ${JSON.stringify(v)}`);
  if (typeof v === "string" && s.format === "uuid" && !UUID.test(v)) out.push(`${at}: uuid expected, got ${JSON.stringify(v)}`);
  if (typeof v === "string" && s.format === "date-time" && Number.isNaN(Date.parse(v))) out.push(`${at}: date-time expected, got ${JSON.stringify(v)}`);
  if (t === "array") (v as unknown[]).forEach((x, i) => out.push(...breaks(x, s.items, `${at}[${i}]`, refs)));
  if (t === "object") {
    const o = v as Record<string, unknown>;
    for (const r of s.required ?? []) if (!(r in o)) out.push(`${at ? at + "." : ""}${r}: required, missing`);
    for (const [k, p] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) if (k in o) out.push(...breaks(o[k], p, at ? `${at}.${k}` : k, refs));
    if (s.additionalProperties === false) for (const k of Object.keys(o)) if (!(k in (s.properties ?? {}))) out.push(`${at ? at + "." : ""}${k}: not in the schema`);
  }
  return out;
}
