import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, sql } from "./helpers.ts";

let k: Kbqa;
let a: Org;
let b: Org;
let corpusId: string;
const ids: Record<string, string> = {};
const T0 = Date.parse("2024-03-01T00:00:00Z");

beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  corpusId = await corpus(a);
  const docs: [string, Record<string, unknown>][] = [
    ["report", { filename: "Report_2024%final.pdf", contentType: "application/pdf", tags: ["fin", "q1"], lang: "en", provider: "drive" }],
    ["reportx", { filename: "ReportX2024final.pdf", contentType: "application/pdf", tags: ["fin"], lang: "fr", provider: "drive" }],
    ["notes", { filename: "notes.md", contentType: "text/markdown", tags: ["q1", "ops"], lang: "en", provider: "upload" }],
    ["emile", { filename: "Émile résumé.txt", contentType: "text/plain", tags: null, lang: "fr" }],
    ["star", { filename: "a*b.txt", contentType: "text/plain", tags: ["ops"] }],
  ];
  for (const [name, body] of docs) ids[name] = (await initOk(a, { corpusId, ...body })).document.id;
  // Place creation times and sizes exactly (the service sets them; the test pins them to check bounds).
  const at: Record<string, [number, number | null, string]> = {
    report: [T0, 300, "READY"], reportx: [T0 + 1000, 100, "PROCESSING"], notes: [T0 + 2000, 200, "FAILED"], emile: [T0 + 3000, null, "AWAITING_UPLOAD"], star: [T0 + 4000, 50, "READY"],
  };
  for (const [name, [created, size, status]] of Object.entries(at)) {
    sql(k, "UPDATE documents SET created_at = ?, updated_at = ?, size = ?, status = ? WHERE id = ?", created, T0 + 10_000 - created, size, status, ids[name]!);
  }
});
afterAll(() => k.stop());

const names = (items: { id: string }[]) => items.map((x) => Object.keys(ids).find((n) => ids[n] === x.id));
async function q(query: string) {
  const r = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}${query}`);
  if (r.status !== 200) throw new Error(`${query}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

describe("GET /v1/doc/ and /v1/doc/q", () => {
  test("default order is newest first; the response carries corpusId, pageIndex, pageSize, total, items", async () => {
    const r = await a.api("GET", `/v1/doc/?corpusId=${corpusId}`);
    expect({ ...r.body, items: names(r.body.items) }).toEqual({ corpusId, pageIndex: 0, pageSize: 25, total: 5, items: ["star", "emile", "notes", "reportx", "report"] });
    const p = await a.api("GET", `/v1/doc/?corpusId=${corpusId}&pageSize=2&pageIndex=1`);
    expect({ ...p.body, items: names(p.body.items) }).toEqual({ corpusId, pageIndex: 1, pageSize: 2, total: 5, items: ["notes", "reportx"] });
    expect(names((await q("")).items)).toEqual(["star", "emile", "notes", "reportx", "report"]);
  });

  test("filename: prefix, case-insensitive (beyond ASCII), * the only wildcard, % and _ literal", async () => {
    const cases: [string, string[]][] = [
      ["report", ["reportx", "report"]],
      ["REPORT_", ["report"]],
      ["report%", []],
      ["report_2024%", ["report"]],
      ["report*final", ["reportx", "report"]],
      ["*final", ["reportx", "report"]],
      ["final", []],
      ["émile", ["emile"]],
      ["ÉMILE R", ["emile"]],
      ["a*b", ["star"]],
      ["*", ["star", "emile", "notes", "reportx", "report"]],
    ];
    for (const [pattern, want] of cases) {
      expect({ pattern, got: names((await q(`&q=${encodeURIComponent(pattern)}`)).items) }).toEqual({ pattern, got: want });
    }
  });

  test("tags: ANY by default (repeatable, GET / too), ALL on request", async () => {
    expect(names((await q("&tags=q1&tags=ops")).items)).toEqual(["star", "notes", "report"]);
    expect(names((await q("&tags=q1&tags=fin&tagsMatch=ALL")).items)).toEqual(["report"]);
    expect(names((await q("&tags=q1&tagsMatch=ALL")).items)).toEqual(["notes", "report"]);
    expect(names((await q("&tags=nope")).items)).toEqual([]);
    // Walking pages of an ANY filter: a document holding two of the tags is met once (SQLite
    // 3.51.1 counted it twice towards OFFSET, so page 2 repeated page 1's document).
    const walked: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) walked.push(...names((await q(`&tags=q1&tags=ops&pageSize=1&pageIndex=${i}`)).items));
    expect(walked).toEqual(["star", "notes", "report"]);
    const list = await a.api("GET", `/v1/doc/?corpusId=${corpusId}&tags=fin`);
    expect(names(list.body.items)).toEqual(["reportx", "report"]);
  });

  test("status repeatable or comma-separated; contentType, lang, provider exact", async () => {
    expect(names((await q("&status=READY&status=FAILED")).items)).toEqual(["star", "notes", "report"]);
    expect(names((await q("&status=READY,AWAITING_UPLOAD")).items)).toEqual(["star", "emile", "report"]);
    expect(names((await a.api("GET", `/v1/doc/?corpusId=${corpusId}&status=PROCESSING`)).body.items)).toEqual(["reportx"]);
    expect((await q("&status=PENDING")).total).toBe(0);
    expect(names((await q("&contentType=application/pdf")).items)).toEqual(["reportx", "report"]);
    expect(names((await q("&contentType=application/PDF")).items)).toEqual([]);
    expect(names((await q("&lang=fr")).items)).toEqual(["emile", "reportx"]);
    // The language part is stored in lower case, so the filter reads it the same way (`FR` is `fr`).
    expect(names((await q("&lang=FR")).items)).toEqual(["emile", "reportx"]);
    expect(names((await q("&provider=drive&lang=en")).items)).toEqual(["report"]);
  });

  test("createdAfter inclusive, createdBefore exclusive; not ordered → 400", async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(names((await q(`&createdAfter=${iso(T0 + 1000)}&createdBefore=${iso(T0 + 3000)}`)).items)).toEqual(["notes", "reportx"]);
    expect(names((await q(`&createdAfter=${iso(T0 + 4000)}`)).items)).toEqual(["star"]);
    expect(names((await q(`&createdBefore=${iso(T0 + 1000)}`)).items)).toEqual(["report"]);
    for (const [after, before] of [[T0, T0], [T0 + 5, T0]]) {
      const r = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&createdAfter=${iso(after)}&createdBefore=${iso(before)}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain("createdAfter");
    }
    const bad = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&createdAfter=yesterday`);
    expect([bad.status, bad.body.message.includes("createdAfter")]).toEqual([400, true]);
  });

  test("sort by each key and order, id closing ties", async () => {
    expect(names((await q("&sort=CREATED_AT&order=ASC")).items)).toEqual(["report", "reportx", "notes", "emile", "star"]);
    expect(names((await q("&sort=UPDATED_AT")).items)).toEqual(["report", "reportx", "notes", "emile", "star"]);
    expect(names((await q("&sort=UPDATED_AT&order=ASC")).items)).toEqual(["star", "emile", "notes", "reportx", "report"]);
    expect(names((await q("&sort=FILENAME")).items)).toEqual(["star", "notes", "report", "reportx", "emile"]);
    expect(names((await q("&sort=FILENAME&order=DESC")).items)).toEqual(["emile", "reportx", "report", "notes", "star"]);
    expect(names((await q("&sort=SIZE")).items)).toEqual(["emile", "star", "reportx", "notes", "report"]);
    expect(names((await q("&sort=SIZE&order=DESC")).items)).toEqual(["report", "notes", "reportx", "star", "emile"]);
  });

  test("invalid parameters → 400 naming them", async () => {
    const cases: [string, string][] = [
      ["&pageSize=0", "pageSize"], ["&pageSize=101", "pageSize"], ["&pageIndex=-1", "pageIndex"], ["&sort=NAME", "sort"],
      ["&order=UP", "order"], ["&status=DONE", "status"], ["&tagsMatch=SOME", "tagsMatch"],
    ];
    for (const [query, field] of cases) {
      for (const path of ["/v1/doc/q", "/v1/doc/"]) {
        if (path === "/v1/doc/" && ["sort", "order", "tagsMatch"].includes(field)) continue;
        const r = await a.api("GET", `${path}?corpusId=${corpusId}${query}`);
        expect({ path, query, status: r.status, named: String(r.body.message).includes(field) }).toEqual({ path, query, status: 400, named: true });
      }
    }
    const none = await a.api("GET", "/v1/doc/q");
    expect([none.status, none.body.message.includes("corpusId")]).toEqual([400, true]);
  });

  test("a corpusId outside the caller's organization → 403 (as chunk and session queries), never another org's documents", async () => {
    expect((await b.api("GET", `/v1/doc/?corpusId=${corpusId}`)).status).toBe(403);
    expect((await b.api("GET", `/v1/doc/q?corpusId=${corpusId}&q=report`)).status).toBe(403);
    expect((await a.api("GET", `/v1/doc/q?corpusId=${crypto.randomUUID()}`)).status).toBe(403);
    const own = await corpus(b);
    expect((await b.api("GET", `/v1/doc/?corpusId=${own}`)).body).toEqual({ corpusId: own, pageIndex: 0, pageSize: 25, total: 0, items: [] });
  });
});
