// What a client generated from /openapi.json expects: every published operation, sent a valid
// request against real data (the fuzz world), answers a status the document lists, with a body
// its schema for that status accepts (required fields present, types as published).
import { expect, test } from "bun:test";
import { generate } from "../helpers/fuzz-cases.ts";
import { opsOf } from "../helpers/fuzz-ops.ts";
import { send } from "../helpers/fuzz-run.ts";
import { rng } from "../helpers/seeded.ts";
import { startWorld, type Schema } from "../helpers/fuzz-world.ts";

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

test("every published operation answers a valid request with a documented status and a body its schema accepts", async () => {
  await using w = await startWorld();
  const doc = (await w.k.request("GET", "/openapi.json")).body;
  const refs = doc.components.schemas as Record<string, Schema>;
  // Storage is the presigned upload target, judged by its own tests (its URLs carry a signature).
  const ops = opsOf(w, (key) => !key.includes(" /storage/"));
  // Operations that end their resource (delete, replace, commit) go last, so reads still find theirs.
  const ends = (m: string, p: string) => m === "DELETE" || p.endsWith("/init") && m === "PUT" || p.endsWith("/commit");
  ops.sort((x, y) => Number(ends(x.method, x.path)) - Number(ends(y.method, y.path)));
  const problems: string[] = [];
  let probed = 0;
  for (const op of ops) {
    // Two valid requests: optional parameters at random (seeded), and none of them.
    for (const seed of [1, 2]) {
      const c = generate(w, op, rng(seed), 1).find((x) => x.base && !x.headers.accept)!;
      if (seed === 2) c.url = c.url.replace(/\?.*$/, (q) => "?" + q.slice(1).split("&").filter((kv) => op.spec.parameters?.find((p) => p.name === kv.split("=")[0])?.required).join("&")).replace(/\?$/, "");
      const a = await send(w, c);
      probed++;
      const seen = `${op.key} (${c.url})`;
      if (a === "timeout") { problems.push(`${seen}: no answer`); continue; }
      if (a.status >= 300) problems.push(`${seen}: the valid request was refused: ${a.status} ${a.text.slice(0, 200)}`);
      const documented = (op.spec as { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> }).responses ?? {};
      const entry = documented[String(a.status)] ?? documented[`${String(a.status)[0]}XX`];
      if (!entry) { problems.push(`${seen}: status ${a.status} not documented (${Object.keys(documented).join(", ")}): ${a.text.slice(0, 200)}`); continue; }
      const type = Object.keys(entry.content ?? {})[0];
      if (type === "application/json") for (const b of breaks(a.json, entry.content![type]!.schema, "", refs)) problems.push(`${seen} ${a.status}: ${b}`);
      if (ends(op.method, op.path)) break;
    }
  }
  console.log(`${ops.length} operations, ${probed} valid requests`);
  expect(ops.length).toBeGreaterThanOrEqual(45);
  expect(problems).toEqual([]);
}, 180_000);
