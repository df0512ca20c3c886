/**
 * One bad input per kind and per field, read off the published schemas (not sampled, unlike the
 * fuzz): for every body field and query parameter of an operation, a value of the wrong type,
 * the field missing when required, one step out of range, one past the length, a value outside
 * the enumeration, a bad array item (named `field[1]`); and for every body the malformed JSON
 * and content-type cases. Each probe starts from the operation's valid request (fuzz-cases.ts),
 * so the fault is the one field changed.
 */
import { generate, type Case, type Op } from "./fuzz-cases.ts";
import { core, fits } from "./fuzz-values.ts";
import { rng } from "./seeded.ts";
import type { Schema, World } from "./fuzz-world.ts";

export interface Probe extends Case {
  /** What the message must name ("tags[1]"); absent when no field is at fault (malformed JSON). */
  field?: string;
}

/** Values the schema refuses, each with the kind of mistake and the field path the refusal should name. */
export function badValues(name: string, s: Schema, valid: unknown, query: boolean): [string, unknown, string][] {
  const members: Schema[] = Array.isArray(s.anyOf) ? s.anyOf.filter((m: Schema) => m.type !== "null") : [s];
  const literals = members.length > 1 && members.every((m) => "const" in m);
  const c = literals ? { type: members[0]!.type } : core(s);
  const out: [string, unknown, string][] = [];
  const type = c.type;
  const other = type === "string" ? (query ? undefined : 12345) : type === "boolean" ? "maybe" : type === "array" ? (query ? undefined : "x") : type === "object" ? [1] : "many";
  if (other !== undefined) out.push(["wrong type", other, name]);
  if (!query && !fits(null, s)) out.push(["null", null, name]);
  if (c.minimum !== undefined) out.push(["below minimum", c.minimum - 1, name]);
  if (c.exclusiveMinimum !== undefined) out.push(["at the exclusive minimum", c.exclusiveMinimum, name]);
  if (c.maximum !== undefined) out.push(["above maximum", c.maximum + 1, name]);
  if (c.maxLength !== undefined) out.push(["one past maxLength", "m".repeat(c.maxLength + 1), name]);
  if (c.minLength && c.minLength > 0) out.push(["shorter than minLength", "", name]);
  if (c.format === "uuid") out.push(["not a uuid", "not-a-uuid", name]);
  if (c.format === "date-time") out.push(["not a timestamp", "yesterday", name]);
  if (c.pattern) out.push(["not matching the pattern", "not-a-match\u0001", name]);
  if (c.enum || literals) out.push(["unknown enum value", "NOT_A_VALUE", name]);
  if (c.type === "array" && !query) {
    const one = Array.isArray(valid) ? valid[0] : valid;
    if (c.maxItems !== undefined) out.push(["one past maxItems", Array(c.maxItems + 1).fill(one), name]);
    if (c.minItems) out.push(["fewer than minItems", [], name]);
    const item = core(c.items ?? {});
    const wrong = item.type === "string" ? 7 : "seven";
    out.push(["item of the wrong type", [one, wrong], `${name}[1]`]);
    for (const [kind, v] of badValues("", item, one, false)) if (kind !== "wrong type" && kind !== "null") out.push([`item ${kind}`, [one, v], `${name}[1]`]);
  }
  // Only what the published schema itself refuses: a probe the document allows proves nothing.
  return out.filter(([, v]) => !fits(v, s));
}

export function probes(w: World, op: Op): Probe[] {
  const base = generate(w, op, rng(1), 1).find((c) => c.base && !c.headers.accept)!;
  const [path, qs] = base.url.split("?") as [string, string | undefined];
  const query = (qs ?? "").split("&").filter(Boolean).map((kv) => kv.split("=") as [string, string]);
  const body = typeof base.body === "string" ? JSON.parse(base.body) : undefined;
  const out: Probe[] = [];
  const withQuery = (label: string, q: [string, string][], field?: string) => out.push({ ...base, base: false, label, url: path + (q.length ? "?" + q.map(([k, v]) => `${k}=${v}`).join("&") : ""), field, invalid: true });
  const withBody = (label: string, raw: string, field?: string, headers = base.headers) => out.push({ ...base, base: false, label, body: raw, headers, field, invalid: true });

  for (const p of (op.spec.parameters ?? []).filter((p) => p.in === "query")) {
    const rest = query.filter(([k]) => k !== p.name);
    if (p.required) withQuery(`query ${p.name}: missing`, rest, p.name);
    // A repeatable parameter is judged value by value: its items are what a bad value breaks.
    const ps = core(p.schema ?? {});
    // A JSON fragment travels as a string: the schema cannot say it must parse, the spec does.
    if (p.name === "json") for (const v of ["{not json", "[1]"]) withQuery(`query json: ${v}`, [...rest, [p.name, encodeURIComponent(v)]], p.name);
    for (const [kind, v] of badValues(p.name, ps.type === "array" ? (ps.items ?? {}) : (p.schema ?? {}), undefined, true)) withQuery(`query ${p.name}: ${kind}`, [...rest, [p.name, encodeURIComponent(String(v))]], p.name);
  }
  const schema = op.spec.requestBody?.content["application/json"]?.schema;
  if (schema && body) {
    for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      const { [k]: valid, ...rest } = body;
      if (schema.required?.includes(k)) withBody(`body ${k}: missing`, JSON.stringify(rest), k);
      for (const [kind, v, field] of badValues(k, s, valid ?? undefined, false)) withBody(`body ${k}: ${kind}`, JSON.stringify({ ...body, [k]: v }), field);
    }
    const good = JSON.stringify(body);
    withBody("body: malformed JSON", good.slice(0, -1));
    withBody("body: a JSON array", "[]");
    withBody("body: form-encoded", "a=1&b=2", undefined, { ...base.headers, "content-type": "application/x-www-form-urlencoded" });
    const first = out.find((p) => p.label.startsWith("body ") && p.field && typeof p.body === "string");
    if (first) withBody(`as text/plain, ${first.label}`, first.body as string, first.field, { ...base.headers, "content-type": "text/plain" });
  }
  return out.map((p) => ({ ...p, label: `${op.key} — ${p.label}` }));
}
