import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ids, newCorpus, seedDocument } from "./helpers.ts";

// The metadata index is built by SQLite's json_tree, which refuses JSON nested over 1000 levels:
// a patched chunk with such metadata silently left every metadata search, and such a `json`
// fragment answered 500. Both are capped at 64 levels (the root object is level 1).
let k: Kbqa;
let a: Org;
let chunkIds: string[];
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  const c = await newCorpus(a);
  ({ chunkIds } = seedDocument(k, a.orgId, c, [
    { pages: [1], metadata: { kind: "chunk", team: "x" } },
    { pages: [2], metadata: { kind: "chunk", team: "y" } },
  ]));
});
afterAll(() => k?.stop());

const nested = (levels: number, extra: Record<string, unknown> = {}) => ({ ...extra, d: JSON.parse("[".repeat(levels - 1) + "1" + "]".repeat(levels - 1)) });
const q = (params: Record<string, string>) => a.api("GET", `/v1/chunk/q?${new URLSearchParams(params)}`);

test("PATCH with metadata nested over 64 levels answers 400 and the chunk stays searchable", async () => {
  for (const levels of [65, 1100]) {
    const r = await a.api("PATCH", `/v1/chunk/${chunkIds[0]}`, { metadata: nested(levels, { kind: "chunk", team: "x" }) });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("Invalid body field 'metadata': must be nested at most 64 levels deep");
  }
  expect((await a.api("GET", `/v1/chunk/${chunkIds[0]}`)).body.metadata).toEqual({ kind: "chunk", team: "x" });
  expect(ids((await q({ key: "team", value: "x" })).body.items)).toEqual([chunkIds[0]]);
});

test("PATCH with metadata at the limit is stored and found by its keys", async () => {
  const md = nested(64, { kind: "chunk", team: "y" });
  const r = await a.api("PATCH", `/v1/chunk/${chunkIds[1]}`, { metadata: md });
  expect(r.status).toBe(200);
  expect(r.body.metadata).toEqual(md);
  expect(ids((await q({ key: "team", value: "y" })).body.items)).toEqual([chunkIds[1]]);
  expect(ids((await q({ json: JSON.stringify({ d: [] }) })).body.items)).toEqual([chunkIds[1]]);
});

test("a json fragment nested over 64 levels answers 400 naming json, at the limit it searches", async () => {
  for (const levels of [65, 1100]) {
    const r = await q({ json: JSON.stringify(nested(levels)) });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("Invalid query parameter 'json': must be nested at most 64 levels deep");
  }
  const ok = await q({ json: JSON.stringify(nested(64)) });
  expect(ok.status).toBe(200);
  expect(ids(ok.body.items)).toEqual([chunkIds[1]]);
});

test("a chunk stored deeper before the limit is still served whole", async () => {
  const c = await newCorpus(a);
  const md = nested(1100, { kind: "chunk" });
  const { chunkIds: [old] } = seedDocument(k, a.orgId, c, [{ pages: [1], metadata: md }]);
  const r = await a.api("GET", `/v1/chunk/${old}`);
  expect(r.status).toBe(200);
  expect(r.body.metadata).toEqual(md);
  expect((await a.api("GET", `/v1/chunk/?pageSize=100`)).status).toBe(200);
});
