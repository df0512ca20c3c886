// The enumerated inputs of /openapi.json hold exactly the values the spec lists for them
// (test/helpers/spec-tables.ts reads them from ../shared/SPEC.md): a generated client offers
// no value the server refuses and misses none it takes.
import { expect, test } from "bun:test";
import { publishedPaths } from "../helpers/openapi-paths.ts";
import { core } from "../helpers/fuzz-values.ts";
import { specEnums } from "../helpers/spec-tables.ts";

const doc = publishedPaths();

test("every enumerated input is published with exactly the spec's values", () => {
  const enums = specEnums();
  expect(Object.keys(enums).sort()).toEqual(["order", "owner", "sort", "status", "tagsMatch", "thinkingMode", "timeframe"]);
  const problems: string[] = [];
  let seen = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const body = op.requestBody?.content?.["application/json"]?.schema?.properties ?? {};
      const fields: [string, any][] = [...(op.parameters ?? []).map((p: any) => [p.name, p.schema]), ...Object.entries(body)] as [string, any][];
      for (const [n, s] of fields) {
        if (!enums[n]) continue;
        const c = core(s);
        const inner = c.type === "array" ? core(c.items) : c;
        const got = inner.enum ?? (inner.anyOf ?? c.anyOf ?? s.anyOf)?.map((x: any) => x.const);
        seen++;
        if (JSON.stringify([...(got ?? [])].sort()) !== JSON.stringify([...enums[n]!].sort())) problems.push(`${m.toUpperCase()} ${path}: ${n} published as ${JSON.stringify(got)}, the spec lists ${enums[n]}`);
      }
    }
  }
  expect(seen).toBeGreaterThanOrEqual(10);
  expect(problems).toEqual([]);
});

/** The values a published schema allows, when it is an enumeration (enum, or a union of constants). */
const allowed = (s: any): string[] | undefined => {
  const c = core(s);
  return c.enum ?? (Array.isArray(s.anyOf) && s.anyOf.every((m: any) => "const" in m || m.type === "null") ? s.anyOf.filter((m: any) => "const" in m).map((m: any) => m.const) : "const" in c ? [c.const] : undefined);
};

test("every enumerated field of an answer is published with exactly the spec's values", () => {
  const enums = specEnums();
  const problems: string[] = [];
  let seen = 0;
  const walk = (node: any, at: string) => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, at));
    if (!node || typeof node !== "object") return;
    for (const [n, s] of Object.entries((node.properties ?? {}) as Record<string, any>)) {
      if (!enums[n] || core(s).type !== "string") continue;
      seen++;
      const got = allowed(s);
      if (JSON.stringify([...(got ?? [])].sort()) !== JSON.stringify([...enums[n]!].sort())) problems.push(`${at}: ${n} published as ${JSON.stringify(got ?? core(s))}, the spec lists ${enums[n]}`);
    }
    for (const v of Object.values(node)) walk(v, at);
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith("/v1/")) continue;
    for (const [m, op] of Object.entries(ops)) walk(op.responses?.["200"] ?? op.responses?.["202"], `${m.toUpperCase()} ${path}`);
  }
  expect(problems).toEqual([]);
  expect(seen).toBeGreaterThanOrEqual(20);
});
