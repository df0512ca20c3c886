import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ids, newCorpus, seedDocument } from "./helpers.ts";

// A hash search narrowed the hash's chunks in SQL with one condition per term of the metadata
// filter: a json fragment listing 1,500 array elements made an expression tree deeper than
// SQLite's 1,000 levels, and the search answered 500.
let k: Kbqa;
let a: Org;
let holds: string;
let lacks: string;
const many = Array.from({ length: 1500 }, (_, i) => i);

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org("A");
  const corpusId = await newCorpus(a);
  const d = seedDocument(k, a.orgId, corpusId, [
    { metadata: { kind: "chunk", a: many }, hash: "same" },
    { metadata: { kind: "chunk", a: many.slice(1) }, hash: "same" },
  ]);
  [holds, lacks] = d.chunkIds as [string, string];
});
afterAll(() => k.stop());

const found = async (q: Record<string, string>) => {
  const r = await a.api("GET", `/v1/chunk/q?${new URLSearchParams(q)}`);
  expect([r.status, r.body.message]).toEqual([200, undefined]);
  return ids(r.body.items);
};

test("a hash search with a json fragment of 1,500 terms answers, and containment still decides", async () => {
  expect(await found({ hash: "same", json: JSON.stringify({ a: many }) })).toEqual([holds]);
  expect(await found({ hash: "same", json: JSON.stringify({ a: many.slice(1), kind: "chunk" }) })).toEqual([holds, lacks]);
  expect(await found({ hash: "same", json: JSON.stringify({ a: [...many, 1500] }) })).toEqual([]);
  // The same fragments without the hash take the bitmap path: the answers agree.
  expect(await found({ json: JSON.stringify({ a: many }) })).toEqual([holds]);
  expect(await found({ json: JSON.stringify({ a: [...many, 1500] }) })).toEqual([]);
});
