// A corpus delete records one vector drop per document. Carried out one by one they cost a
// LanceDB commit each (and an optimize every 25): at 50,000 documents that kept the table's
// write queue, which every organization's ingestion shares, busy for the better part of an hour.
// The drops of one organization are now grouped into one delete per 500 documents; this test
// counts the table's versions (one per commit) across the drop of a 30-document corpus.
import { expect, test } from "bun:test";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { vectorCount } from "../ingest/seed.ts";
import { tableNameFor } from "../../src/store/lance.ts";
import { groupDrops } from "../../src/documents/vector-drops.ts";

const DOCS = 30;

async function tableVersion(dataDir: string): Promise<number> {
  const conn = await lancedb.connect(join(dataDir, "lance"));
  try {
    const t = await conn.openTable(tableNameFor("builtin-hash-embed"));
    try {
      return await t.version();
    } finally {
      t.close();
    }
  } finally {
    conn.close();
  }
}

test("dropping a deleted corpus' vectors takes a few LanceDB commits, not one per document", async () => {
  await using k = await startKbqa();
  const org = await k.org();
  const doomed = (await org.api("POST", "/v1/corpus/", { name: "doomed" })).body.id;
  const kept = (await org.api("POST", "/v1/corpus/", { name: "kept" })).body.id;
  const text = (n: number) => `# Note ${n}\n\n` + `Sentence ${n} about grouped vector drops. `.repeat(30);
  const ids: string[] = [];
  for (let start = 0; start < DOCS; start += 6) {
    ids.push(...(await Promise.all(Array.from({ length: 6 }, (_, i) => ingestDocument(k, org, doomed, `n${start + i}.md`, text(start + i))))));
  }
  const stays = await ingestDocument(k, org, kept, "kept.md", text(999));
  // Let the ingestion's own optimize (after a burst settles, 500 ms) happen before counting.
  let before = await tableVersion(k.dataDir);
  await waitFor(async () => {
    await Bun.sleep(1500);
    const v = await tableVersion(k.dataDir);
    const same = v === before;
    before = v;
    return same;
  }, "the table to settle", 30_000, 0);

  expect((await org.api("DELETE", `/v1/corpus/${doomed}`)).status).toBeLessThan(300);
  await waitFor(async () => {
    for (const id of [ids[0]!, ids[DOCS - 1]!]) if ((await vectorCount(k.dataDir, org.orgId, id)) > 0) return false;
    return true;
  }, "the deleted corpus' vectors to go", 60_000, 200);
  // The settle-time optimize after the delete adds a few versions of its own.
  await Bun.sleep(1500);
  const commits = (await tableVersion(k.dataDir)) - before;
  expect(commits).toBeLessThan(DOCS / 3);
  for (const id of ids) expect(await vectorCount(k.dataDir, org.orgId, id)).toBe(0);
  expect(await vectorCount(k.dataDir, org.orgId, stays)).toBeGreaterThan(0);
}, 120_000);

test("groupDrops: whole-document and chunk drops of one organization go together, generation drops alone", () => {
  const a = "00000000-0000-4000-8000-00000000000a";
  const b = "00000000-0000-4000-8000-00000000000b";
  const g = groupDrops([
    { id: 1, org_id: a, document_id: "d1", generation: null },
    { id: 2, org_id: b, document_id: "d2", generation: null },
    { id: 3, org_id: a, document_id: "d3", generation: 4 },
    { id: 4, org_id: a, document_id: "d4", generation: null },
    { id: 5, org_id: a, document_id: "d1", generation: null },
    // A chunk drop names its document, but only the chunk goes: no document id to drop or clean.
    { id: 6, org_id: a, document_id: "d5", generation: null, chunk_id: "c1" },
    { id: 7, org_id: b, document_id: "d2", generation: null, chunk_id: "c2" },
    { id: 8, org_id: a, document_id: "d6", generation: null, chunk_id: "c3" },
  ]);
  expect(g).toEqual([
    { orgId: a, documentIds: ["d1", "d4"], ids: [1, 4, 5] },
    { orgId: b, documentIds: ["d2"], ids: [2] },
    { orgId: a, documentIds: [], chunkIds: ["c1", "c3"], ids: [6, 8] },
    { orgId: b, documentIds: [], chunkIds: ["c2"], ids: [7] },
    { orgId: a, documentIds: ["d3"], generation: 4, ids: [3] },
  ]);
});
