// The spec types every timestamp as ISO-8601 in UTC; /openapi.json published them as bare
// strings, so a generated client kept them as text. Each one, sent or answered, is published as
// `format: date-time` — while the server keeps accepting what it accepted (a time without a
// zone is UTC, a date alone is midnight) and refuses the rest naming the field.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { core } from "../helpers/fuzz-values.ts";

const NAMES = new Set(["createdAt", "updatedAt", "expiresAt", "timestamp", "docCreate", "docUpdate", "createdAfter", "createdBefore", "from", "to"]);
let k: Kbqa;
let a: Org;
let paths: Record<string, Record<string, any>>;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  paths = (await k.request("GET", "/openapi.json")).body.paths;
});
afterAll(() => k?.stop());

/** "op field" for every timestamp-named property or parameter under `node` not published as date-time. */
function bare(node: any, at: string, out: string[]) {
  if (Array.isArray(node)) return node.forEach((n) => bare(n, at, out));
  if (!node || typeof node !== "object") return;
  for (const [name, s] of Object.entries((node.properties ?? {}) as Record<string, any>)) {
    if (NAMES.has(name) && core(s).format !== "date-time") out.push(`${at} ${name}`);
  }
  for (const v of Object.values(node)) bare(v, at, out);
}

test("every timestamp of every request and response is published as date-time", () => {
  const out: string[] = [];
  let seen = 0;
  for (const [path, ops] of Object.entries(paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const at = `${m.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) if (NAMES.has(p.name) && (seen++, core(p.schema).format !== "date-time")) out.push(`${at} ${p.name}`);
      bare(op.requestBody, at, out);
      bare(op.responses?.["200"] ?? op.responses?.["202"], at, out);
      seen += JSON.stringify(op).split(`"date-time"`).length - 1;
    }
  }
  expect(out).toEqual([]);
  expect(seen).toBeGreaterThan(40);
});

test("what was accepted still is, and a timestamp that is none is refused naming its field", async () => {
  const corpusId = (await a.api("POST", "/v1/corpus/", { name: "t" })).body.id;
  const init = (docCreate: unknown) => a.api("POST", "/v1/doc/init", { corpusId, filename: "a.md", contentType: "text/markdown", docCreate });
  for (const [sent, stored] of [["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.000Z"], ["2024-01-02T03:04:05", "2024-01-02T03:04:05.000Z"], ["2024-01-02", "2024-01-02T00:00:00.000Z"], ["2024-01-02T05:04:05+02:00", "2024-01-02T03:04:05.000Z"]]) {
    const r = await init(sent);
    expect({ sent, status: r.status, stored: r.body.document?.docCreate }).toEqual({ sent, status: 200, stored });
  }
  for (const bad of ["yesterday", "2024-02-30", ""]) {
    const r = await init(bad);
    expect({ bad, status: r.status, named: /'docCreate'/.test(r.body.message) }).toEqual({ bad, status: 400, named: true });
  }
  const q = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&createdAfter=2024-01-02&createdBefore=2030-01-01T00:00:00`);
  expect([q.status, q.body.total]).toEqual([200, 4]);
  const r = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&createdBefore=soon`);
  expect([r.status, /'createdBefore'/.test(r.body.message)]).toEqual([400, true]);
});
