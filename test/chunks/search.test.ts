import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ids, newCorpus, seedDocument, walk } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let other: Org;
let c1: string;
let c2: string;
let d1: { documentId: string; chunkIds: string[] };
let d2: { documentId: string; chunkIds: string[] };
let d3: { documentId: string; chunkIds: string[] };

const q = (params: Record<string, string>) => org.api("GET", `/v1/chunk/q?${new URLSearchParams(params)}`);
const found = async (params: Record<string, string>) => {
  const r = await q(params);
  expect(r.status).toBe(200);
  expect(r.body.total).toBe(r.body.items.length);
  return ids(r.body.items);
};

beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  other = await k.org();
  c1 = await newCorpus(org, "one");
  c2 = await newCorpus(org, "two");
  d1 = seedDocument(k, org.orgId, c1, [
    { pages: [], metadata: { kind: "summary" }, hash: "same" },
    { pages: [1, 2], metadata: { kind: "chunk", lang: "en", n: 3, ok: true, section: { title: "Intro", level: 1 } } },
    { pages: [2, 3, 4], metadata: { kind: "chunk", lang: "fr", n: "3", tags: ["a", "b"], authors: [{ name: "ann", role: "editor" }, { name: "bob", role: "owner" }] } },
  ]);
  d2 = seedDocument(k, org.orgId, c1, [
    { pages: [4], metadata: { kind: "chunk", section: { title: "Intro", level: 2, sub: { deep: [1, 2] } }, tags: ["b"] }, hash: "same" },
    { pages: [5], metadata: { kind: "chunk", authors: [{ name: "ann", role: "owner" }], nil: null } },
  ]);
  d3 = seedDocument(k, org.orgId, c2, [{ pages: [1], metadata: { kind: "chunk", lang: "en", "a.b": "dotted", "x[0]": "bracket" } }]);
  // Starts a server and runs the CLI per organization: on a loaded 2-core machine that outlasts the default 5 s.
}, 60_000);
afterAll(() => k?.stop());

describe("GET /v1/chunk/q filters", () => {
  test("no filter: every chunk in reading order", async () => {
    expect(await found({})).toEqual([...d1.chunkIds, ...d2.chunkIds, ...d3.chunkIds]);
  });

  test("corpusId and documentId narrow and combine", async () => {
    expect(await found({ corpusId: c2 })).toEqual(d3.chunkIds);
    expect(await found({ documentId: d2.documentId })).toEqual(d2.chunkIds);
    expect(await found({ corpusId: c2, documentId: d2.documentId })).toEqual([]);
  });

  test("a corpusId or documentId outside the organization is 403, also when unknown", async () => {
    const oc = await newCorpus(other, "theirs");
    const od = seedDocument(k, other.orgId, oc, [{ pages: [1] }]);
    for (const p of <Record<string, string>[]>[{ corpusId: oc }, { documentId: od.documentId }, { corpusId: crypto.randomUUID() }, { documentId: crypto.randomUUID() }]) {
      const r = await q(p);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ status: 403, error: "Forbidden", path: "/v1/chunk/q" });
    }
    expect((await q({ corpusId: "not-a-uuid" })).status).toBe(400);
  });

  test("hash is exact, across documents and corpora", async () => {
    expect(await found({ hash: "same" })).toEqual([d1.chunkIds[0], d2.chunkIds[0]]);
    expect(await found({ hash: "sam" })).toEqual([]);
    expect(await found({ hash: "same", documentId: d2.documentId })).toEqual([d2.chunkIds[0]]);
  });

  test("page is membership in the span; 0 or less is 400", async () => {
    expect(await found({ page: "2" })).toEqual([d1.chunkIds[1], d1.chunkIds[2]]);
    expect(await found({ page: "4" })).toEqual([d1.chunkIds[2], d2.chunkIds[0]]);
    expect(await found({ page: "3", corpusId: c1 })).toEqual([d1.chunkIds[2]]);
    for (const p of ["0", "-1", "x"]) {
      const r = await q({ page: p });
      expect(r.status).toBe(400);
      expect(r.body.message).toContain("page");
    }
  });

  test("key/value: one pair by containment; the value matches as string and as the JSON scalar it spells", async () => {
    expect(await found({ key: "lang", value: "en" })).toEqual([d1.chunkIds[1], d3.chunkIds[0]]);
    expect(await found({ key: "n", value: "3" })).toEqual([d1.chunkIds[1], d1.chunkIds[2]]);
    expect(await found({ key: "ok", value: "true" })).toEqual([d1.chunkIds[1]]);
    expect(await found({ key: "nil", value: "null" })).toEqual([d2.chunkIds[1]]);
    expect(await found({ key: "a.b", value: "dotted" })).toEqual([d3.chunkIds[0]]);
    expect(await found({ key: "x[0]", value: "bracket" })).toEqual([d3.chunkIds[0]]);
    expect(await found({ key: "kind", value: "summary" })).toEqual([d1.chunkIds[0]]);
    expect(await found({ key: "lang", value: "de" })).toEqual([]);
  });

  test("key without value, or value without key, is 400", async () => {
    for (const p of <Record<string, string>[]>[{ key: "lang" }, { value: "en" }]) {
      const r = await q(p);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain("key");
    }
  });

  test("json: nested objects by containment, extra keys allowed", async () => {
    expect(await found({ json: JSON.stringify({ section: { title: "Intro" } }) })).toEqual([d1.chunkIds[1], d2.chunkIds[0]]);
    expect(await found({ json: JSON.stringify({ section: { title: "Intro", level: 2 } }) })).toEqual([d2.chunkIds[0]]);
    expect(await found({ json: JSON.stringify({ section: { sub: { deep: [2] } } }) })).toEqual([d2.chunkIds[0]]);
    expect(await found({ json: JSON.stringify({ section: {} }) })).toEqual([d1.chunkIds[1], d2.chunkIds[0]]);
    expect(await found({ json: JSON.stringify({ kind: "chunk", lang: "en" }) })).toEqual([d1.chunkIds[1], d3.chunkIds[0]]);
    expect(await found({ json: "{}" })).toEqual([...d1.chunkIds, ...d2.chunkIds, ...d3.chunkIds]);
  });

  test("json: arrays match when every fragment element is contained in some stored element", async () => {
    expect(await found({ json: JSON.stringify({ tags: ["b"] }) })).toEqual([d1.chunkIds[2], d2.chunkIds[0]]);
    expect(await found({ json: JSON.stringify({ tags: ["b", "a"] }) })).toEqual([d1.chunkIds[2]]);
    expect(await found({ json: JSON.stringify({ tags: [] }) })).toEqual([d1.chunkIds[2], d2.chunkIds[0]]);
    expect(await found({ json: JSON.stringify({ tags: "b" }) })).toEqual([]);
    expect(await found({ json: JSON.stringify({ authors: [{ name: "ann" }] }) })).toEqual([d1.chunkIds[2], d2.chunkIds[1]]);
    // Both keys must hold in one element: ann is an editor only in d1.
    expect(await found({ json: JSON.stringify({ authors: [{ name: "ann", role: "editor" }] }) })).toEqual([d1.chunkIds[2]]);
    expect(await found({ json: JSON.stringify({ authors: [{ name: "ann", role: "owner" }] }) })).toEqual([d2.chunkIds[1]]);
    expect(await found({ json: JSON.stringify({ authors: [{ name: "bob", role: "editor" }] }) })).toEqual([]);
  });

  test("json: types are strict (3 is not \"3\"), null is a value", async () => {
    expect(await found({ json: '{"n":3}' })).toEqual([d1.chunkIds[1]]);
    expect(await found({ json: '{"n":"3"}' })).toEqual([d1.chunkIds[2]]);
    expect(await found({ json: '{"n":3.0}' })).toEqual([d1.chunkIds[1]]);
    expect(await found({ json: '{"nil":null}' })).toEqual([d2.chunkIds[1]]);
    expect(await found({ json: '{"ok":1}' })).toEqual([]);
  });

  test("json wins over key/value", async () => {
    expect(await found({ json: '{"lang":"fr"}', key: "lang", value: "en" })).toEqual([d1.chunkIds[2]]);
    expect(await found({ json: '{"lang":"fr"}', key: "lang" })).toEqual([d1.chunkIds[2]]);
  });

  test("invalid json, or json that is not an object, is 400", async () => {
    for (const j of ["{", "[1]", '"x"', "3", "null"]) {
      const r = await q({ json: j });
      expect(r.status).toBe(400);
      expect(r.body.message).toContain("json");
    }
  });

  test("all filters combine", async () => {
    expect(await found({ corpusId: c1, page: "4", json: '{"tags":["b"]}', hash: "same" })).toEqual([d2.chunkIds[0]]);
    expect(await found({ documentId: d1.documentId, key: "lang", value: "en", page: "2" })).toEqual([d1.chunkIds[1]]);
    expect(await found({ corpusId: c1, json: '{"authors":[{"name":"ann"}]}', page: "5" })).toEqual([d2.chunkIds[1]]);
  });

  test("body=true includes text and caps pageSize at 25", async () => {
    const r = await q({ documentId: d3.documentId, body: "true" });
    expect(r.body.items).toEqual([
      { id: d3.chunkIds[0], documentId: d3.documentId, corpusId: c2, pages: [1], hash: `h-${d3.chunkIds[0]}`, metadata: { kind: "chunk", lang: "en", "a.b": "dotted", "x[0]": "bracket" }, body: "text 0" },
    ]);
    expect((await q({ body: "true", pageSize: "26" })).status).toBe(400);
  });

  test("paging over exact and inexact matches: totals exact, pages disjoint and in order", async () => {
    for (const json of ['{"kind":"chunk"}', '{"authors":[{"name":"ann"}]}']) {
      const all = await found({ json });
      const walked = await walk(org, `/v1/chunk/q?json=${encodeURIComponent(json)}`, 1);
      expect(ids(walked)).toEqual(all);
      const p1 = await q({ json, pageSize: "1", pageIndex: "1" });
      expect(p1.body.total).toBe(all.length);
      expect(ids(p1.body.items)).toEqual(all.slice(1, 2));
    }
  });
});
