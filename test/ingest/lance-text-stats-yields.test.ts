// The terms of every row written or removed are counted into the organization's text statistics
// (store/scoped-bm25.ts). Splitting 38 MB of text into terms takes about a second of JavaScript:
// done in one go, a big document's vectors would hold the server's event loop that long when
// they are written, and again when they are replaced. The driver counts in slices between turns
// of the loop instead; a 1 ms timer measures the longest gap meanwhile.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-text-stats-yields-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORDS = "committee reviewed figures budget quarterly revenue growth analysis procurement policy compliance ferries".split(" ");
function text(seed: number, chars: number): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const w = `${WORDS[(seed * 7 + i * 13) % WORDS.length]} n${(seed + i) % 997}`;
    out.push(w);
    n += w.length + 1;
  }
  return out.join(" ");
}

/** The longest gap between ticks of a 1 ms timer while `work` runs. */
async function longestGap(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now(), worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  try {
    await work();
    worst = Math.max(worst, performance.now() - last);
  } finally {
    clearInterval(timer);
  }
  return worst;
}

test("writing and replacing a 38 MB document's rows never holds the event loop for the counting of its terms", async () => {
  const idx = await openLanceIndex(join(dir, "lance"), "test-embed", 2);
  try {
    await idx.textStatsReady();
    const orgId = newId(), corpusId = newId(), documentId = newId();
    const rows = (generation: number): VectorRecord[] => Array.from({ length: 4000 }, (_, i) => ({
      chunkId: newId(), orgId, corpusId, documentId, generation, text: text(i + generation, 9500), vector: Float32Array.from([1, 0]),
    }));
    const first = rows(1);
    const written = await longestGap(() => idx.replaceDocument(orgId, documentId, first));
    const second = rows(2);
    const replaced = await longestGap(() => idx.replaceDocument(orgId, documentId, second));
    // LanceDB's own work left gaps of 60-80 ms here; counting in one go, 1.2 s.
    expect(written).toBeLessThan(500);
    expect(replaced).toBeLessThan(500);
    expect((await idx.searchText(orgId, [corpusId], "committee", 3)).length).toBe(3);
  } finally {
    await idx.close();
  }
}, 120_000);
