// The answers of /openapi.json against the spec's resource tables (read from ../shared/SPEC.md):
// every field the spec lists for a document, chunk, session, post, agent or usage report is in
// the published schema of the operation that returns it, typed as the spec types it.
import { expect, test } from "bun:test";
import { publishedPaths } from "../helpers/openapi-paths.ts";
import { core } from "../helpers/fuzz-values.ts";
import { fieldNames, SPEC } from "../helpers/spec-tables.ts";

/** The first table after `anchor` in the spec: field name → type cell. */
function firstTable(anchor: string): Map<string, string> {
  const body = SPEC.slice(SPEC.indexOf(anchor) + anchor.length);
  const start = body.indexOf("\n| ");
  const rows = body.slice(start + 1).split("\n");
  const out = new Map<string, string>();
  for (const l of rows.slice(0, rows.findIndex((l) => !l.startsWith("|")))) {
    const c = l.split("|").map((x) => x.trim());
    for (const n of fieldNames(c[1]!)) out.set(n, c[2]!);
  }
  return out;
}

const RETURNED_BY: [string, string, string][] = [
  ["\n### Document\n", "/v1/doc/{id}", "get"], ["\n### Chunk\n", "/v1/chunk/{chunkId}", "get"], ["\n### Session\n", "/v1/session/{sessionId}", "get"],
  ["\n### Post\n", "/v1/post/{postId}", "get"], ["\n### Agent\n", "/v1/agent/{agentId}", "get"], ["Report shape:", "/v1/usage/all", "get"],
];
const JSON_TYPE: Record<string, string> = { uuid: "string", string: "string", enum: "string", integer: "integer", int: "integer", bool: "boolean", number: "number", timestamp: "string", object: "object" };

const doc = publishedPaths();

test("every field of the spec's resource tables is published in the answer that returns it, with the spec's type", () => {
  const problems: string[] = [];
  let checked = 0;
  for (const [anchor, path, method] of RETURNED_BY) {
    const heading = anchor.startsWith("\n### ") ? anchor.trim().slice(4) : "Usage report";
    const schema = doc.paths[path]![method]!.responses["200"].content["application/json"].schema;
    for (const [name, type] of firstTable(anchor)) {
      checked++;
      const s = schema.properties?.[name];
      if (!s) { problems.push(`${heading}.${name}: not in ${method.toUpperCase()} ${path}`); continue; }
      const c = core(s);
      const want = type.startsWith("array") ? "array" : JSON_TYPE[type];
      const got = [c.type].flat().filter((t) => t !== "null")[0];
      if (want && got !== want && !(want === "number" && got === "integer")) problems.push(`${heading}.${name}: ${got}, the spec says ${type}`);
      if (type === "uuid" && c.format !== "uuid") problems.push(`${heading}.${name}: no uuid format`);
      if (type === "timestamp" && c.format !== "date-time") problems.push(`${heading}.${name}: no date-time format`);
    }
  }
  console.log(`${checked} resource fields checked`);
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThanOrEqual(60);
});
