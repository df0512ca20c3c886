// The count of the text statistics after a crash runs beside the write queue (lance.ts); close()
// stops it at its next batch and saves statistics only if it has them. Closed while the count
// reads, with a write committed meanwhile, or before the count has even begun, the index must
// close (not wait out the count, not hang), and what it leaves must not describe the table
// wrongly: the next open either takes a snapshot equal to a quiet count or counts afresh.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex, textStatsFile } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { mulberry32 } from "../helpers/seeded.ts";
import { savedStats, skewedWords } from "./text-stats-saved.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-text-recount-closed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rand = mulberry32(31);
const VOCAB = Array.from({ length: 5000 }, (_, i) => "c" + i.toString(36) + ["left", "right"][i % 2]);
const words = skewedWords(rand, VOCAB);
const org = newId(), corpus = newId();
const row = (documentId: string, text: string): VectorRecord =>
  ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId, generation: 1, text, vector: Float32Array.from([1, rand()]) });


test("closed while the statistics are counted, or before the count begins, the index leaves nothing wrong for the next open", async () => {
  const path = join(dir, "t");
  const file = textStatsFile(path, "chunks__test_embed");
  let idx = await openLanceIndex(path, "test-embed", 2);
  for (let i = 0; i < 20; i++) await idx.add(Array.from({ length: 10 }, () => row(newId(), words(4000))));
  await idx.close();
  rmSync(file); // as after a crash

  // Closed while the count reads, a write having been committed meanwhile.
  idx = await openLanceIndex(path, "test-embed", 2);
  const ready = idx.textStatsReady();
  await idx.vectorCopyReady();
  await idx.add([row(newId(), words(50))]);
  await idx.close();
  const countedBeforeClose = await ready;
  const leftWhileCounting = existsSync(file) ? savedStats(file) : undefined;

  // Closed before the count has begun (no snapshot to take: the last close had none).
  idx = await openLanceIndex(path, "test-embed", 2);
  const readyBefore = idx.textStatsReady();
  await idx.close();
  const countedBeforeBegun = await readyBefore;
  const leftBeforeBegun = existsSync(file) ? savedStats(file) : undefined;
  rmSync(file, { force: true });

  idx = await openLanceIndex(path, "test-embed", 2);
  expect(await idx.textStatsReady()).toBe(true);
  await idx.close();
  const quiet = savedStats(file);
  expect(quiet[org]!.rows).toBe(201);
  if (leftWhileCounting) expect(leftWhileCounting).toEqual(quiet);
  if (leftBeforeBegun) expect(leftBeforeBegun).toEqual(quiet);
  // Checked last, so that the exactness above is reported even where the count was quick: close
  // stopped the counts instead of waiting them out.
  expect(countedBeforeClose).toBe(false);
  expect(countedBeforeBegun).toBe(false);
}, 120_000);
