// A delete must read the text of the rows it removes (their terms leave the organization's text
// statistics), and it kept that text until LanceDB had committed the delete: a corpus delete
// removes up to 500 documents' rows in one go, so the server held all their text at once. Now
// only their terms are kept. The heap is sampled, after a full collection, while a delete of
// 8,000 rows of 4 KB (32 MB of text, many of LanceDB's batches) runs.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heapStats } from "bun:jsc";
import { openLanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-delete-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MB = 1024 * 1024;
const ROW_CHARS = 4 * 1024;
const ROWS = 8_000;

test("deleting 32 MB of text keeps their terms, not the text, until the commit", async () => {
  const idx = await openLanceIndex(dir, "test-embed", 2);
  try {
    const orgId = newId(), corpusId = newId(), documentId = newId();
    // few distinct words, so what a delete keeps of them is small next to the text
    const words = Array.from({ length: 500 }, (_, i) => `term${i}`).join(" ") + " ";
    const text = (n: number) => `row ${n} ` + words.repeat(Math.ceil(ROW_CHARS / words.length)).slice(n % 97, n % 97 + ROW_CHARS);
    const rows: VectorRecord[] = Array.from({ length: ROWS }, (_, i) =>
      ({ chunkId: newId(), orgId, corpusId, documentId, generation: 1, text: text(i), vector: Float32Array.from([1, 0]) }));
    await idx.add(rows);
    rows.length = 0;
    expect(await idx.textStatsReady()).toBe(true);
    Bun.gc(true);
    const base = heapStats().heapSize;
    let peak = base;
    const sampler = setInterval(() => {
      Bun.gc(true);
      peak = Math.max(peak, heapStats().heapSize);
    }, 10);
    try {
      await idx.deleteDocuments(orgId, [documentId]);
    } finally {
      clearInterval(sampler);
    }
    expect(await idx.count()).toBe(0);
    expect(await idx.searchText(orgId, [corpusId], "term7", 5)).toEqual([]);
    const grew = (peak - base) / MB;
    console.log(`heap grew by ${grew.toFixed(1)} MB during the delete`);
    expect(grew).toBeLessThan(16);
  } finally {
    await idx.close();
  }
}, 120_000);
