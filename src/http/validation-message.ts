import { Kind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";

/**
 * Turns a schema failure into "<field> must be <what is allowed> (got <value>)", in words.
 *
 * TypeBox reports a failed union (every optional-or-null field, every Elysia number that also
 * accepts its string form, every enum of literals) as "expected union value", and Elysia words
 * that as "should be one of: 'integer', 'integer'": the field is named but the rule is lost, and
 * a bad element of an array is blamed on the whole array. Here a union is opened: when exactly
 * one of its members is of the value's own JSON type, the value is checked against that member
 * (so `tags[1]` is found inside a nullable array), and the answer describes the field's whole
 * rule rather than TypeBox's first complaint.
 */

type Schema = TSchema & Record<string, unknown>;

export interface Fault {
  /** Path in the request part, as the client writes it: `tags[1]`, `chunk.size`; "" for the part itself. */
  path: string;
  /** "is required", "must be an integer from 1 to 100 (got 0)". */
  problem: string;
}

const isUnion = (s: Schema) => Array.isArray(s.anyOf);
/** Elysia's numbers accept their string form through a `{type: "string", format: "integer"|"numeric"}` member. */
const isNumericCarrier = (s: Schema) => s.type === "string" && (s.format === "integer" || s.format === "numeric");
const leaves = (s: Schema): Schema[] => (isUnion(s) ? (s.anyOf as Schema[]).flatMap(leaves) : [s]);

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v;
}

function acceptsType(s: Schema, type: string): boolean {
  if (s[Kind] === "JsonObject") return type === "object";
  if (s.const !== undefined) return jsonType(s.const) === type || (type === "integer" && typeof s.const === "number");
  if (s.type === "number") return type === "number" || type === "integer";
  return s.type === type;
}

/** Where the client would look: `/tags/1` → `tags[1]`, `/chunk/size` → `chunk.size`. */
export function fieldPath(pointer: string): string {
  let out = "";
  for (const raw of pointer.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return out;
}

const joinPath = (base: string, rest: string) => (rest === "" ? base : rest.startsWith("[") || base === "" ? base + rest : `${base}.${rest}`);

function range(s: Schema): string {
  const min = s.minimum as number | undefined;
  const max = s.maximum as number | undefined;
  const xmin = s.exclusiveMinimum as number | undefined;
  const xmax = s.exclusiveMaximum as number | undefined;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  const parts: string[] = [];
  if (min !== undefined) parts.push(`of at least ${min}`);
  if (xmin !== undefined) parts.push(`greater than ${xmin}`);
  if (max !== undefined) parts.push(`of at most ${max}`);
  if (xmax !== undefined) parts.push(`less than ${xmax}`);
  return parts.length ? ` ${parts.join(" and ")}` : "";
}

function lengths(s: Schema, unit: string): string {
  const min = s.minLength ?? s.minItems;
  const max = s.maxLength ?? s.maxItems;
  if (min !== undefined && max !== undefined) return min === 1 ? ` of 1 to ${max} ${unit}` : ` of ${min} to ${max} ${unit}`;
  if (max !== undefined) return ` of at most ${max} ${unit}`;
  if (min !== undefined) return min === 1 ? "" : ` of at least ${min} ${unit}`;
  return "";
}

/** Alternatives a string is held to: an `enum`, or a pattern that is only `^(A|B|C)$`. */
function choices(s: Schema): string[] | undefined {
  if (Array.isArray(s.enum)) return s.enum.map(String);
  const m = typeof s.pattern === "string" ? /^\^\(([\w|-]+)\)\$$/.exec(s.pattern) : null;
  return m ? m[1]!.split("|") : undefined;
}

/** What a schema allows, as a noun phrase: "an integer from 1 to 100", "one of LOW, HIGH". */
export function describe(s: Schema): string {
  // A rule the schema cannot express alone (enforced after normalising) is stated by the schema itself.
  if (typeof s["x-rule"] === "string") return s["x-rule"];
  if (isUnion(s)) {
    const members = leaves(s).filter((m) => !isNumericCarrier(m));
    const consts = members.filter((m) => m.const !== undefined);
    const others = members.filter((m) => m.const === undefined).map(describe);
    const parts = [...(consts.length ? [consts.length === 1 ? JSON.stringify(consts[0]!.const) : `one of ${consts.map((m) => String(m.const)).join(", ")}`] : []), ...others];
    return [...new Set(parts)].join(", or ");
  }
  if (s[Kind] === "JsonObject") return typeof s.maxDepth === "number" ? `a JSON object nested at most ${s.maxDepth} levels deep` : "a JSON object";
  if (s.const !== undefined) return JSON.stringify(s.const);
  switch (s.type) {
    case "null":
      return "null";
    case "boolean":
      return "true or false";
    case "integer":
      return `an integer${range(s)}`;
    case "number":
      return `a number${range(s)}`;
    case "array": {
      const items = s.items as Schema | undefined;
      if (s.minItems === 1 && s.maxItems === undefined) return `a non-empty array${items ? `, each ${describe(items)}` : ""}`;
      return `an array${lengths(s, "items")}${items ? `, each ${describe(items)}` : ""}`;
    }
    case "object":
      return "a JSON object";
    case "string": {
      const options = choices(s);
      if (options) return options.length === 1 ? JSON.stringify(options[0]) : `one of ${options.join(", ")}`;
      if (s.format === "uuid" || (typeof s.pattern === "string" && s.pattern.includes("[0-9a-fA-F]{8}-"))) return "a UUID";
      if (s.format === "date-time") return "an ISO 8601 date-time";
      const len = lengths(s, "characters");
      if (len) return `a string${len}`;
      if (s.minLength === 1) return "a non-empty string";
      return typeof s.description === "string" && s.pattern ? `a string (${s.description})` : "a string";
    }
  }
  return typeof s.description === "string" ? s.description : "a valid value";
}

/** The value as the client sent it, when short enough to quote. */
function shown(v: unknown): string {
  // A string over 38 characters is over 40 once quoted: not worth printing (a 14 MB one was).
  if (v === undefined || (typeof v === "object" && v !== null) || (typeof v === "string" && v.length > 38)) return "";
  const text = JSON.stringify(v);
  return text !== undefined && text.length <= 40 ? ` (got ${text})` : "";
}

/**
 * The fault behind TypeBox error `e` raised while checking `schema`'s part at path `base`.
 * Unions are opened as described above; containers are entered so the deepest field is named.
 */
export function explain(e: ValueError, base = ""): Fault {
  const here = joinPath(base, fieldPath(e.path));
  const s = e.schema as Schema;
  if (e.type === ValueErrorType.ObjectRequiredProperty) {
    return { path: here, problem: typeof s.description === "string" ? `is required (${s.description})` : "is required" };
  }
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return { path: here, problem: "is not allowed" };
  // Worded by the error function registered with the kind (http/paging.ts): too deep, or not an object.
  if (s[Kind] === "JsonObject") return { path: here, problem: e.message };
  if (typeof s.error === "string") return { path: here, problem: s.error };
  if (isUnion(s)) {
    const type = jsonType(e.value);
    const fits = leaves(s).filter((m) => !isNumericCarrier(m) && acceptsType(m, type));
    if (fits.length === 1 && (fits[0]!.type === "array" || fits[0]!.type === "object")) {
      const inner = Value.Errors(fits[0]!, e.value).First();
      if (inner) return explain(inner, here);
    }
  }
  return { path: here, problem: `must be ${describe(s)}${shown(e.value)}` };
}

/** The first fault of `value` against `schema`, if any. */
export function firstFault(schema: TSchema, value: unknown): Fault | undefined {
  const e = Value.Errors(schema, value).First();
  return e ? explain(e) : undefined;
}
