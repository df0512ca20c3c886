import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, sql } from "./helpers.ts";

const N = 250;
let k: Kbqa;
let a: Org;
let corpusId: string;
let all: string[];
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
  all = [];
  for (let i = 0; i < N; i += 25) {
    const batch = await Promise.all(Array.from({ length: 25 }, (_, j) => initOk(a, { corpusId, filename: `doc-${(i + j) % 7}.txt` })));
    all.push(...batch.map((b) => b.document.id));
  }
  // Every document gets the same timestamps and only a few distinct sizes and names: ties everywhere.
  sql(k, "UPDATE documents SET created_at = 1700000000000, updated_at = 1700000000000, size = (rowid % 3) * 10 WHERE corpus_id = ?", corpusId);
}, 120_000);
afterAll(() => k.stop());

async function walk(query: string, pageSize: number): Promise<string[]> {
  const seen: string[] = [];
  for (let page = 0; ; page++) {
    const r = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&pageSize=${pageSize}&pageIndex=${page}${query}`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(N);
    if (r.body.items.length === 0) break;
    seen.push(...r.body.items.map((x: { id: string }) => x.id));
  }
  return seen;
}

describe("paging over 250 documents with equal timestamps", () => {
  for (const sort of ["", "&sort=CREATED_AT&order=ASC", "&sort=UPDATED_AT", "&sort=FILENAME", "&sort=SIZE&order=DESC"]) {
    test(`walking pages neither repeats nor skips (${sort || "default"})`, async () => {
      for (const size of [7, 25, 100]) {
        const seen = await walk(sort, size);
        expect(seen.length).toBe(N);
        expect(new Set(seen).size).toBe(N);
        expect([...seen].sort()).toEqual([...all].sort());
        // The same walk twice gives the same order.
        if (size === 25) expect(await walk(sort, size)).toEqual(seen);
      }
    });
  }

  test("GET /v1/doc/ pages the same way, newest first then id", async () => {
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const r = await a.api("GET", `/v1/doc/?corpusId=${corpusId}&pageSize=100&pageIndex=${page}`);
      seen.push(...r.body.items.map((x: { id: string }) => x.id));
    }
    expect(seen).toEqual([...all].sort().reverse());
  });
});
