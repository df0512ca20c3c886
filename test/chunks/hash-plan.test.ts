// GET /v1/chunk/q?hash=… walked every live chunk of the organization (340 ms at 500,000 chunks,
// the event loop held): without statistics SQLite preferred the reading-order index, which
// spares the sort, to the hash index. The plan is checked on the server's own database, with
// the statement the route runs, for each combination of filters that goes through it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { newCorpus, seedDocument } from "./helpers.ts";
import { hashCandidatesSql } from "../../src/chunks/query.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = await newCorpus(org);
});
afterAll(() => k.stop());

test("a hash search finds its chunks through the hash index, whatever else it filters on", async () => {
  const a = seedDocument(k, org.orgId, corpusId, Array.from({ length: 50 }, (_, i) => ({ pages: [1 + (i % 5)], hash: i % 10 === 0 ? "dup" : undefined, metadata: { kind: i ? "chunk" : "summary" } })));
  const b = seedDocument(k, org.orgId, corpusId, [{ pages: [2], hash: "dup", metadata: { kind: "chunk" } }]);
  const r = await org.api("GET", "/v1/chunk/q?hash=dup&pageSize=100");
  expect(r.status).toBe(200);
  expect(r.body.total).toBe(6);
  expect(r.body.items.map((c: any) => c.id)).toEqual([...a.chunkIds.filter((_, i) => i % 10 === 0), ...b.chunkIds].sort((x, y) =>
    a.chunkIds.includes(x) === a.chunkIds.includes(y) ? 0 : a.chunkIds.includes(x) ? -1 : 1));
  expect((await org.api("GET", `/v1/chunk/q?hash=dup&documentId=${b.documentId}`)).body.total).toBe(1);
  expect((await org.api("GET", "/v1/chunk/q?hash=dup&page=1&key=kind&value=summary")).body.total).toBe(1);

  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    const shapes: [string[], boolean][] = [
      [["c.hash = $hash"], false],
      [["c.hash = $hash", "c.first_page BETWEEN 1 AND $page AND EXISTS (SELECT 1 FROM json_each(c.pages) WHERE value = $page)"], false],
      [["c.hash = $hash", "c.document_id = $doc"], true],
    ];
    for (const [preds, inexact] of shapes) {
      const plan = (db.query(`EXPLAIN QUERY PLAN ${hashCandidatesSql(preds, inexact)}`).all({ org: "o", hash: "h", page: 1, doc: "d" }) as { detail: string }[])
        .map((p) => p.detail);
      const outer = plan.find((d) => /\bc\b/.test(d) && /^(SEARCH|SCAN)/.test(d))!;
      expect(outer).toContain("USING INDEX chunks_hash (org_id=? AND hash=?)");
    }
  } finally {
    db.close();
  }
});
