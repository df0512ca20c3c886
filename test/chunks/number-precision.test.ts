import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ids, newCorpus, seedDocument } from "./helpers.ts";

// The metadata index spells a number that is not an integer with 15 significant digits, so
// distinct numbers can share a term; such a filter must be confirmed value by value.
let k: Kbqa;
let a: Org;
let c: Record<string, string>;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  const corpus = await newCorpus(a);
  const rows: [string, Record<string, unknown>][] = [
    ["point3", { score: 0.3 }],
    ["point3ulp", { score: 0.30000000000000004 }],
    ["big", { big: 12345678901234567000 }],
    ["bigNext", { big: 12345678901234570000 }],
    ["e21", { huge: 1e21 }],
    ["int", { n: 7, tag: "x" }],
    ["nested", { deep: { score: 0.3 }, list: [0.3, 1] }],
  ];
  const seeded = seedDocument(k, a.orgId, corpus, rows.map(([, md], i) => ({ pages: [i + 1], metadata: { kind: "chunk", ...md } })));
  c = Object.fromEntries(rows.map(([name], i) => [name, seeded.chunkIds[i]!]));
});
afterAll(() => k?.stop());

const names = (items: { id: string }[]) => ids(items).map((id) => Object.keys(c).find((n) => c[n] === id) ?? "?");
const search = async (params: Record<string, string>) => {
  const r = await a.api("GET", `/v1/chunk/q?${new URLSearchParams(params)}`);
  expect(r.status).toBe(200);
  if (!params.pageSize) expect(r.body.total).toBe(r.body.items.length);
  return names(r.body.items);
};
const json = (v: unknown) => search({ json: JSON.stringify(v) });

test("json: numbers equal to 15 digits but not equal do not match each other", async () => {
  expect(await json({ score: 0.30000000000000004 })).toEqual(["point3ulp"]);
  expect(await json({ score: 0.3 })).toEqual(["point3"]);
  expect(await json({ big: 12345678901234570000 })).toEqual(["bigNext"]);
  expect(await json({ big: 12345678901234567000 })).toEqual(["big"]);
  expect(await json({ huge: 1.0000000000000001e21 })).toEqual([]);
  expect(await json({ huge: 1e21 })).toEqual(["e21"]);
  expect(await json({ deep: { score: 0.30000000000000004 } })).toEqual([]);
  expect(await json({ list: [0.30000000000000004] })).toEqual([]);
  expect(await json({ list: [0.3] })).toEqual(["nested"]);
});

test("key/value: the number a value spells matches only that number", async () => {
  expect(await search({ key: "score", value: "0.30000000000000004" })).toEqual(["point3ulp"]);
  expect(await search({ key: "score", value: "0.3" })).toEqual(["point3"]);
  expect(await search({ key: "big", value: "12345678901234570000" })).toEqual(["bigNext"]);
});

test("the hash filter combined with a number filter is exact too", async () => {
  const h = (await a.api("GET", `/v1/chunk/${c.point3}`)).body.hash;
  expect(await search({ hash: h, json: JSON.stringify({ score: 0.30000000000000004 }) })).toEqual([]);
  expect(await search({ hash: h, json: JSON.stringify({ score: 0.3 }) })).toEqual(["point3"]);
});

test("integers and strings still match exactly, paged", async () => {
  expect(await json({ n: 7, tag: "x" })).toEqual(["int"]);
  expect(await search({ key: "n", value: "7" })).toEqual(["int"]);
  expect(await search({ json: JSON.stringify({ kind: "chunk" }), pageSize: "3", pageIndex: "2" })).toEqual(["nested"]);
});
