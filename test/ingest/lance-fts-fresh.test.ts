// Rows added after the FTS index was built are scored by LanceDB with other statistics than the
// indexed ones, which can rank every new row below worse old matches. Writes no longer refresh
// the index themselves; a text search on a small table refreshes it first when writes left it behind.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { unindexedTextRows } from "../helpers/lance-text-index.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-lance-fts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const org = newId(), corpus = newId();
const WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon".split(" ");
let seed = 7;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
/** `n` rows of about 20 words; `needles` occurrences of "needle" in every `every`-th row. */
const rows = (n: number, needles: number, every: number): VectorRecord[] =>
  Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 20 }, () => WORDS[Math.floor(rnd() * WORDS.length)]!);
    if (i % every === 0) for (let k = 0; k < needles; k++) words[k * 5] = "needle";
    return { chunkId: newId(), orgId: org, corpusId: corpus, documentId: newId(), generation: 1, text: words.join(" "), vector: Float32Array.from([rnd(), rnd()]) };
  });

test("a text search never mixes indexed and unindexed rows: new rows with more matches rank first", async () => {
  const ix = await openLanceIndex(dir, "fts-fresh", 2);
  try {
    const old = rows(400, 1, 20); // "needle" once, in 20 rows: rare, so the index gives it a high weight
    await ix.add(old); // builds the FTS index over these
    const fresh = rows(30, 3, 1); // "needle" three times in every row
    await ix.add(fresh);
    const hits = await ix.searchText(org, [corpus], "needle", 10);
    const freshIds = new Set(fresh.map((r) => r.chunkId));
    expect(hits.map((h) => freshIds.has(h.chunkId))).toEqual(Array(10).fill(true));
    expect(await unindexedTextRows(dir, "fts-fresh")).toBe(0);
  } finally {
    await ix.close();
  }
});
