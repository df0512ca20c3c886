/**
 * Hostile values for the schema-driven fuzz (fuzz-cases.ts), and a small check of a value
 * against a published JSON schema: a value the server's own OpenAPI document refuses must not
 * be answered 2xx. The check covers the keywords the document uses and errs on the side of
 * "valid" for anything else, so it never demands a refusal the document does not state.
 */
import type { Schema } from "./fuzz-world.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function depth(v: unknown): number {
  if (v === null || typeof v !== "object") return 0;
  let d = 0;
  for (const x of Object.values(v)) d = Math.max(d, depth(x));
  return d + 1;
}

/** False when the schema clearly refuses `v`. */
export function fits(v: unknown, s: Schema | undefined): boolean {
  if (!s) return true;
  if (Array.isArray(s.anyOf)) return s.anyOf.some((m: Schema) => fits(v, m));
  if (v === null) return s.type === "null" || s.nullable === true || s.type === undefined;
  if (s.enum && !s.enum.includes(v)) return false;
  if ("const" in s && v !== s.const) return false;
  switch (s.type) {
    case "string":
      if (typeof v !== "string") return false;
      if (s.minLength !== undefined && [...v].length < s.minLength) return false;
      if (s.maxLength !== undefined && [...v].length > s.maxLength) return false;
      if (s.format === "uuid" && !UUID.test(v)) return false;
      if (s.pattern && !new RegExp(s.pattern, "u").test(v)) return false;
      return true;
    case "integer":
    case "number":
      // The API takes a number's decimal string form too, on purpose (validation-messages.test.ts),
      // though the document publishes numbers only: "5" is judged as 5.
      if (typeof v === "string" && /^[+-]?\d+(\.\d+)?$/.test(v)) v = Number(v);
      if (typeof v !== "number" || !Number.isFinite(v)) return false;
      if (s.type === "integer" && !Number.isInteger(v)) return false;
      if (s.minimum !== undefined && v < s.minimum) return false;
      if (s.maximum !== undefined && v > s.maximum) return false;
      if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) return false;
      if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) return false;
      return true;
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return false;
    case "array":
      if (!Array.isArray(v)) return false;
      if (s.minItems !== undefined && v.length < s.minItems) return false;
      if (s.maxItems !== undefined && v.length > s.maxItems) return false;
      return v.every((x) => fits(x, s.items));
    case "object":
      if (typeof v !== "object" || Array.isArray(v)) return false;
      if (s.maxDepth !== undefined && depth(v) > s.maxDepth) return false;
      if (s.maxChars !== undefined && JSON.stringify(v).length > s.maxChars) return false;
      for (const r of s.required ?? []) if (!(r in (v as object))) return false;
      return Object.entries(s.properties ?? {}).every(([k, p]) => !(k in (v as object)) || fits((v as Record<string, unknown>)[k], p as Schema));
  }
  return true;
}

/** The member of an anyOf that is not null, or the schema itself. */
export const core = (s: Schema): Schema => (Array.isArray(s.anyOf) ? (s.anyOf.find((m: Schema) => m.type !== "null") ?? s) : s);

export const nested = (n: number, leaf: unknown = 1): unknown => {
  let v: unknown = leaf;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};

/** JSON text too deep for any recursive parser: tens of thousands of open arrays. */
export const deepText = (n: number) => "[".repeat(n) + "]".repeat(n);

/** Values of every JSON type and the usual troublemakers, each with a short name for reports. */
export function anyValues(huge: string): [string, unknown][] {
  return [
    ["null", null], ["true", true], ["false", false], ["0", 0], ["-1", -1], ["1.5", 1.5], ["1e308", 1e308], ["-1e308", -1e308],
    ["2^53+1", 2 ** 53 + 2], ["-0", -0], ["empty string", ""], ["blank string", "   "], ["string", "x"], ["numeric string", "5"],
    ["boolean string", "true"], ["huge string (100k)", huge], ["lone surrogate", "ab\ud800cd"], ["NUL", "a\u0000b"],
    ["RTL override", "\u202eabc\u202c"], ["emoji", "😀👍🏽"], ["sql-ish", "' OR 1=1 --"], ["format string", "%s%n%x"],
    ["empty array", []], ["array", [1, "a", null]], ["array of huge", [huge]], ["empty object", {}], ["object", { a: 1 }],
    ["nested 70 deep", nested(70)], ["nested 2000 deep", nested(2000)], ["__proto__ key", JSON.parse('{"__proto__":{"x":1}}')],
  ];
}

/** Values for a string query or path parameter, already percent-encoded (some are deliberately not valid encodings). */
export const RAW_STRINGS: [string, string][] = [
  ["empty", ""], ["blank", "%20%20"], ["NUL", "a%00b"], ["invalid UTF-8", "%FF%FE"], ["lone surrogate bytes", "%ED%A0%80"],
  ["bad escape", "%zz"], ["lone percent", "%"], ["RTL", "%E2%80%AEabc"], ["emoji", "%F0%9F%98%80"], ["wildcards", "*%25_"],
  ["json", "%7B%22a%22%3A1%7D"], ["deep json", encodeURIComponent(deepText(2000))], ["dot dot", "..%2F..%2Fetc"], ["plus", "a+b"],
];

export const RAW_NUMBERS: [string, string][] = [
  ["not a number", "abc"], ["float", "1.5"], ["negative", "-1"], ["exponent", "1e3"], ["overflow", "1e309"], ["NaN", "NaN"],
  ["Infinity", "Infinity"], ["huge", "99999999999999999999"], ["hex", "0x10"], ["trailing text", "5abc"], ["spaced", "%205"],
  ["negative zero", "-0"], ["plus sign", "%2B5"],
];

export const RAW_BOOLEANS: [string, string][] = [["yes", "yes"], ["1", "1"], ["upper", "TRUE"], ["garbage", "tru"], ["empty", ""]];
