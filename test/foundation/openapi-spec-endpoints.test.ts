// /openapi.json against the contract itself (test/helpers/spec-tables.ts reads ../shared/SPEC.md):
// every endpoint table row of the spec is published with its method and path (deprecated ones
// are hidden, Versioning rule 2), with the inputs the spec names, required where the spec says
// so, and typed as the spec's field tables type them.
import { expect, test } from "bun:test";
import { publishedPaths } from "../helpers/openapi-paths.ts";
import { core } from "../helpers/fuzz-values.ts";
import { deprecated, inputs, rows, TYPES } from "../helpers/spec-tables.ts";

const doc = publishedPaths();

const published = (ep: string) => {
  const [method, path] = ep.split(" ");
  return doc.paths[path!]?.[method!.toLowerCase()];
};

test("the spec's endpoint tables are read: about 45 operations, 4 of them deprecated", () => {
  expect(rows.size).toBeGreaterThanOrEqual(45);
  expect([...deprecated].sort()).toEqual(["GET /v1/session/byMetadata", "GET /v1/session/byUser", "POST /v1/post/", "PUT /v1/corpus/{corpusId}"]);
});

test("every endpoint of the spec is published with its method and path, deprecated ones hidden, and nothing else under /v1", () => {
  const missing = [...rows.keys()].filter((ep) => !deprecated.has(ep) && !published(ep));
  const shown = [...deprecated].filter((ep) => published(ep));
  const extra = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).filter((ep) => ep.includes(" /v1/") && !rows.has(ep));
  expect({ missing, shown, extra }).toEqual({ missing: [], shown: [], extra: [] });
});

test("every input the spec names is published under its name, required where the spec requires it, typed as the spec types it", () => {
  const problems: string[] = [];
  let checked = 0;
  for (const ep of rows.keys()) {
    const op = published(ep);
    if (!op) continue;
    const body = op.requestBody?.content?.["application/json"]?.schema;
    const params: Record<string, { required: boolean; schema: any }> = Object.fromEntries((op.parameters ?? []).map((p: any) => [p.name, p]));
    const fields: Record<string, { required: boolean; schema: any }> = { ...params };
    for (const [n, s] of Object.entries(body?.properties ?? {})) fields[n] = { required: (body.required ?? []).includes(n), schema: s };
    const spec = inputs(ep);
    for (const n of spec.names) {
      checked++;
      const f = fields[n];
      if (!f) problems.push(`${ep}: ${n} not published`);
      else if (spec.required.includes(n) && !f.required) problems.push(`${ep}: ${n} required by the spec, optional in the document`);
      const type = core(f?.schema ?? {}).type;
      // A type given in the row itself ("`body` (bool)") wins over the resource tables'.
      const own = new RegExp("`" + n + "` \\((bool|int)").exec(rows.get(ep)!)?.[1];
      const want = own ? { bool: "boolean", int: "integer" }[own] : (spec.types?.[n] ?? TYPES[n]);
      // Query arrays (status, tags, pages) repeat a parameter; their items are what the spec types.
      if (f && want && type !== want && !(type === "array" && !body)) problems.push(`${ep}: ${n} is ${type}, the spec says ${want}`);
    }
  }
  console.log(`${checked} inputs of the spec checked`);
  expect(checked).toBeGreaterThanOrEqual(80);
  expect(problems).toEqual([]);
});
