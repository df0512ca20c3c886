// The count of the text statistics after a crash reads a version of the table pinned in its write
// queue, beside the queue (lance.ts). An optimize() queued meanwhile compacts the fragments that
// version is made of into new files; version cleanup would delete the old ones while the count
// still reads them (LanceDB opens some 16 fragments ahead, so a table of more fails), which is why
// optimize() cleans no versions while a count reads. Here the clock is moved ten minutes on, so
// the pinned version is well past the cleanup's age (60 s): the count must still succeed, exact.
import { afterAll, afterEach, expect, setSystemTime, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex, textStatsFile } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { mulberry32 } from "../helpers/seeded.ts";
import { racingAndQuiet, skewedWords } from "./text-stats-saved.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-text-recount-optimize-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => setSystemTime());

const rand = mulberry32(23);
const VOCAB = Array.from({ length: 5000 }, (_, i) => "k" + i.toString(36) + ["north", "south", "east"][i % 3]);
const words = skewedWords(rand, VOCAB);
const org = newId(), corpus = newId();
const row = (documentId: string, text: string): VectorRecord =>
  ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId, generation: 1, text, vector: Float32Array.from([1, rand()]) });


test("an optimize() while the statistics are counted leaves the pinned version readable and the count exact", async () => {
  const path = join(dir, "t");
  // 80 fragments: 10 opens of 8 writes each, fewer than a background optimize waits for (25), and
  // each close cancels the one a settled burst would start.
  const docs: string[] = [];
  for (let open = 0; open < 10; open++) {
    const idx = await openLanceIndex(path, "test-embed", 2);
    for (let w = 0; w < 8; w++) {
      const d = newId();
      docs.push(d);
      await idx.add(Array.from({ length: 25 }, () => row(d, words(1000))));
    }
    await idx.close();
  }
  const data = join(path, "chunks__test_embed.lance", "data");
  expect(readdirSync(data).length).toBeGreaterThanOrEqual(64);
  const file = textStatsFile(path, "chunks__test_embed");
  rmSync(file); // as after a crash

  const lines: string[] = [];
  const log = { info: (msg: string) => lines.push(msg), error: (msg: string) => lines.push(msg) };
  let idx = await openLanceIndex(path, "test-embed", 2, { log });
  let counted = false;
  const ready = idx.textStatsReady().then((ok) => ((counted = true), ok));
  // The count is pinned in the turn right after the copy's load; these are queued behind it.
  await idx.vectorCopyReady();
  await idx.add([row(newId(), words(40))]);
  await idx.deleteDocuments(org, docs.slice(0, 2));
  setSystemTime(new Date(Date.now() + 10 * 60_000));
  await idx.optimize();
  const optimizedWhileCounting = !counted;
  setSystemTime();
  expect(await ready).toBe(true);
  // The same table counted again with nothing racing the count.
  const { racing, quiet } = await racingAndQuiet(idx, path, "test-embed", file);
  expect(quiet[org]!.rows).toBe((docs.length - 2) * 25 + 1);
  expect(racing).toEqual(quiet);
  expect(lines.filter((l) => l.includes("could not count"))).toEqual([]);
  // Checked last, so that the exactness above is reported even where the count was quick.
  expect(optimizedWhileCounting).toBe(true);
}, 120_000);
