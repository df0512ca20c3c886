// A demanding client's mistakes, one per kind and per field of every operation with a body or
// a query (test/helpers/bad-inputs.ts reads them off the published schemas): each answers a 4xx
// in time, never a 5xx, with the spec's error object, and a refusal caused by a field names it
// (`corpusId`, `pages`, `tags[1]`) so the client knows what to fix.
import { expect, test } from "bun:test";
import { probes } from "../helpers/bad-inputs.ts";
import { hiddenOps, opsOf } from "../helpers/fuzz-ops.ts";
import { judge, send } from "../helpers/fuzz-run.ts";
import { startWorld } from "../helpers/fuzz-world.ts";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The field as a word of the message: `tags[1]` is not `tags[10]`, `body` is not `nobody`. */
const names = (message: string, field: string) => new RegExp(`(^|[^\\w.\\[])${escape(field)}($|[^\\w\\[])`).test(message);

test("every bad value of every body field and query parameter answers a 4xx with the error object naming the field", async () => {
  await using w = await startWorld();
  const ops = [...opsOf(w, (k) => !k.includes(" /storage/")), ...hiddenOps(w)].filter((o) => o.spec.requestBody || o.spec.parameters?.some((p) => p.in === "query"));
  const all = ops.flatMap((op) => probes(w, op));
  const problems: string[] = [];
  const fields = new Set<string>();
  for (const p of all) {
    const a = await send(w, p);
    const wrong = judge(p, a);
    const seen = `${p.label}: ${a === "timeout" ? "no answer" : `${a.status} ${a.text.slice(0, 300)}`}`;
    if (wrong) problems.push(`${seen} — ${wrong}`);
    else if (a !== "timeout" && a.status < 400) problems.push(`${seen} — accepted`);
    else if (a !== "timeout" && p.field && !names(a.json?.message ?? "", p.field)) problems.push(`${seen} — does not name '${p.field}'`);
    if (p.field) fields.add(`${p.method} ${p.url.split("?")[0]} ${p.field}`);
  }
  console.log(`${ops.length} operations, ${all.length} bad requests, ${fields.size} fields named`);
  expect(ops.length).toBeGreaterThanOrEqual(25);
  expect(problems).toEqual([]);
}, 180_000);
