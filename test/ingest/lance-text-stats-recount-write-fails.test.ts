// The count of the text statistics after a crash runs beside the write queue (lance.ts). A write
// that fails while it runs may have committed part of its work, so the count starts over after
// it. Here the disk turns read-only (a real tmpfs remounted) while the count reads: the write
// fails, the count, reading only, goes on and starts again, and once the disk is writable again
// the statistics it ends with equal a count of the final table made with nothing racing it.
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openLanceIndex, textStatsFile } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { mulberry32 } from "../helpers/seeded.ts";
import { savedStats, skewedWords } from "./text-stats-saved.ts";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";

const rand = mulberry32(11);
const VOCAB = Array.from({ length: 5000 }, (_, i) => "v" + i.toString(36) + ["delta", "omega"][i % 2]);
const words = skewedWords(rand, VOCAB);
const org = newId(), corpus = newId();
const row = (documentId: string, text: string): VectorRecord =>
  ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId, generation: 1, text, vector: Float32Array.from([1, rand()]) });


test.if(CAN_MOUNT)("a write that fails while the statistics are counted leaves them exact", async () => {
  await using disk = smallDisk(192);
  const path = join(disk.dataDir, "lance");
  const docs = Array.from({ length: 150 }, () => newId());
  let idx = await openLanceIndex(path, "test-embed", 2);
  await idx.add([row(newId(), words(30))]);
  for (let i = 0; i < docs.length; i += 30) await idx.add(docs.slice(i, i + 30).flatMap((d) => Array.from({ length: 10 }, () => row(d, words(4000)))));
  await idx.close();
  const file = textStatsFile(path, idx.tableName);
  rmSync(file); // as after a crash

  const lines: string[] = [];
  const log = { info: (msg: string) => lines.push(msg), error: (msg: string) => lines.push(msg) };
  idx = await openLanceIndex(path, "test-embed", 2, { log });
  let counted = false;
  const ready = idx.textStatsReady().then((ok) => ((counted = true), ok));
  disk.remountReadOnly(true);
  const failed = await idx.deleteDocuments(org, docs.slice(0, 5)).then(() => false, () => true);
  const failedWhileCounting = !counted;
  disk.remountReadOnly(false);
  await idx.deleteDocuments(org, docs.slice(5, 8));
  await idx.add([row(newId(), words(50))]);
  expect(failed).toBe(true);
  expect(await ready).toBe(true);
  await idx.close();
  const afterFailure = savedStats(file);
  rmSync(file);

  idx = await openLanceIndex(path, "test-embed", 2);
  expect(await idx.textStatsReady()).toBe(true);
  await idx.close();
  const quiet = savedStats(file);
  expect(quiet[org]!.rows).toBe(1 + (docs.length - 3) * 10 + 1);
  expect(afterFailure).toEqual(quiet);
  expect(lines.filter((l) => l.includes("could not count"))).toEqual([]);
  // Checked last, so that the exactness above is reported even where the count was quick.
  expect(failedWhileCounting).toBe(true);
}, 120_000);
