// The driver's row estimate picks how a table is refreshed: small tables sync the FTS index
// before a text search, large ones (over FTS_SYNC_MAX_ROWS) wait a minute. Deletes were never
// subtracted from it, so a table that only ever held about 100 rows was treated as large once
// 20,000 rows had passed through it (a 35-minute soak: versions up from ~800 to ~2,400, FTS
// index sets from ~180 to 2, searches mixing indexed and unindexed BM25 scores).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex } from "../../src/store/lance.ts";
import { FTS_SYNC_MAX_ROWS } from "../../src/store/refresh-pace.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { unindexedTextRows } from "../helpers/lance-text-index.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-lance-estimate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const org = newId(), corpus = newId();
const rows = (n: number, text: string): VectorRecord[] => {
  const documentId = newId();
  return Array.from({ length: n }, (_, i) => ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId, generation: 1, text: `${text} ${i}`, vector: Float32Array.from([1, i]) }));
};

test("a small table stays small after more than FTS_SYNC_MAX_ROWS rows were added and deleted", async () => {
  const ix = await openLanceIndex(dir, "estimate", 2);
  try {
    const BATCH = 1_000;
    for (let added = 0; added <= FTS_SYNC_MAX_ROWS; added += BATCH) {
      const batch = rows(BATCH, "alpha beta gamma");
      await ix.add(batch);
      await ix.deleteDocuments!(org, [batch[0]!.documentId]);
    }
    await ix.add(rows(30, "needle"));
    expect(await ix.count()).toBe(30);
    expect((await ix.searchText(org, [corpus], "needle", 5)).length).toBe(5);
    // Synced before the search, as on any table this size; the old estimate (21,030) left it to a paced refresh.
    expect(await unindexedTextRows(dir, "estimate")).toBe(0);
  } finally {
    await ix.close();
  }
}, 120_000);
