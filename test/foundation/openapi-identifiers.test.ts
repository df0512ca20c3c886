// Identifiers are UUIDv4 strings (spec, Common conventions), and the usage report's
// organizationId is typed uuid: every id a response carries is published as `format: uuid`, so
// a generated client types it as one. orgId and userId are strings in the spec; a model's id is
// its name.
import { expect, test } from "bun:test";
import { publishedPaths } from "../helpers/openapi-paths.ts";
import { core } from "../helpers/fuzz-values.ts";

const NOT_UUIDS = new Set(["orgId", "userId"]);
const doc = publishedPaths();

function ids(node: any, at: string, out: string[], seen: { n: number }) {
  if (Array.isArray(node)) return node.forEach((n) => ids(n, at, out, seen));
  if (!node || typeof node !== "object") return;
  for (const [name, s] of Object.entries((node.properties ?? {}) as Record<string, any>)) {
    if (!/^id$|Ids?$/.test(name) || NOT_UUIDS.has(name)) continue;
    const c = core(s);
    seen.n++;
    if ((c.type === "array" ? core(c.items ?? {}) : c).format !== "uuid") out.push(`${at} ${name}`);
  }
  for (const v of Object.values(node)) ids(v, at, out, seen);
}

test("every identifier in a response is published as a uuid", () => {
  const out: string[] = [];
  const seen = { n: 0 };
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (path === "/v1/config/model") continue;
    for (const [m, op] of Object.entries(ops)) ids(op.responses?.["200"] ?? op.responses?.["202"], `${m.toUpperCase()} ${path}`, out, seen);
  }
  expect(out).toEqual([]);
  expect(seen.n).toBeGreaterThan(60);
});
