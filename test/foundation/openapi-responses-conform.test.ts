// What a client generated from /openapi.json expects: every published operation, sent a valid
// request against real data (the fuzz world), answers a status the document lists, with a body
// its schema for that status accepts (required fields present, types as published).
import { expect, test } from "bun:test";
import { generate } from "../helpers/fuzz-cases.ts";
import { opsOf } from "../helpers/fuzz-ops.ts";
import { send } from "../helpers/fuzz-run.ts";
import { rng } from "../helpers/seeded.ts";
import { startWorld, type Schema } from "../helpers/fuzz-world.ts";
import { breaks } from "../helpers/schema-breaks.ts";

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
