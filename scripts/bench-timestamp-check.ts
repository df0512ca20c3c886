/**
 * What publishing timestamps as `date-time` costs a response check: the compiled check of a
 * 100-document page (4 timestamps each, parseTime behind the format) against the same schema
 * with the format taken out (the schema before), in the same run, alternating rounds.
 *   bun scripts/bench-timestamp-check.ts [rounds=5] [checksPerRound=2000]
 */
import "../src/http/typebox-setup.ts";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import { DocPageView } from "../src/documents/schema.ts";

const rounds = Number(process.argv[2] ?? 5);
const checks = Number(process.argv[3] ?? 2000);

function withoutFormat(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(withoutFormat);
  if (!s || typeof s !== "object") return s;
  const out: Record<string | symbol, unknown> = {};
  for (const k of Reflect.ownKeys(s)) if (!(k === "format" && (s as Record<string, unknown>)[k] === "date-time")) out[k] = withoutFormat((s as Record<string | symbol, unknown>)[k]);
  return out;
}

const now = Date.now();
const at = (i: number) => new Date(now - i * 1000).toISOString();
const page = {
  corpusId: crypto.randomUUID(), pageIndex: 0, pageSize: 100, total: 100,
  items: Array.from({ length: 100 }, (_, i) => ({
    id: crypto.randomUUID(), corpusId: crypto.randomUUID(), filename: `f${i}.pdf`, contentType: "application/pdf", status: "READY",
    size: 1000, tokens: 10, nbWords: 10, nbPages: 3, userId: "u", provider: "p", lang: "en", metadata: { a: i }, tags: ["x"],
    docCreate: at(i), docUpdate: at(i + 1), createdAt: at(i + 2), updatedAt: at(i + 3),
  })),
};
const after = TypeCompiler.Compile(DocPageView);
const before = TypeCompiler.Compile(withoutFormat(DocPageView) as TSchema);
if (!after.Check(page) || !before.Check(page)) throw new Error("the page must pass both checks");
if (JSON.stringify(withoutFormat(DocPageView)).includes("date-time")) throw new Error("baseline still carries the format");

const time = (c: { Check(v: unknown): boolean }) => {
  const t0 = performance.now();
  for (let i = 0; i < checks; i++) c.Check(page);
  return ((performance.now() - t0) * 1000) / checks;
};
const b: number[] = [];
const a: number[] = [];
for (let r = 0; r < rounds; r++) {
  b.push(time(before));
  a.push(time(after));
}
const best = (xs: number[]) => Math.min(...xs).toFixed(1);
console.log(`100-document page check: without the format ${best(b)} µs, with date-time ${best(a)} µs (best of ${rounds} rounds of ${checks})`);
console.log(`rounds without: ${b.map((x) => x.toFixed(1)).join(", ")}; with: ${a.map((x) => x.toFixed(1)).join(", ")}`);
