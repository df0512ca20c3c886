// The count of the text statistics after a crash reads a version of the table pinned beside the
// write queue (lance.ts), and optimize() removes no version while a count holds one. A write that
// fails while the count reads makes the count stop at its next batch and start over; until then
// it still holds the version. The guard used to be keyed on the writes' record of the count,
// which the failed write clears at once, so an optimize() right after it removed the version the
// count was still reading. Here the count's first batch is one big fragment (a second or more to
// count); a write fails while it counts (the disk remounted read-only), and an optimize() follows
// with the clock moved ten minutes on, so the pinned version is well past the cleanup's age (60 s).
import { afterEach, expect, setSystemTime, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openLanceIndex, textStatsFile } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { mulberry32 } from "../helpers/seeded.ts";
import { racingAndQuiet, skewedWords } from "./text-stats-saved.ts";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";

afterEach(() => setSystemTime());

const rand = mulberry32(47);
const VOCAB = Array.from({ length: 5000 }, (_, i) => "p" + i.toString(36) + ["pin", "held"][i % 2]);
const words = skewedWords(rand, VOCAB);
const org = newId(), corpus = newId();
const row = (documentId: string, text: string): VectorRecord =>
  ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId, generation: 1, text, vector: Float32Array.from([1, rand()]) });

test.if(CAN_MOUNT)("an optimize() right after a write failed while the statistics are counted keeps the version the count holds", async () => {
  await using disk = smallDisk(512);
  const path = join(disk.dataDir, "lance");
  const versions = join(path, "chunks__test_embed.lance", "_versions");
  // The first fragment, 1,200 chunks of 4,000 words, is the count's first batch. The write that
  // fails deletes a document of 200 such chunks, which it reads (and counts) first: by the time
  // it fails, the count is well into that batch.
  let idx = await openLanceIndex(path, "test-embed", 2);
  await idx.add(Array.from({ length: 1200 }, () => row(newId(), words(4000))));
  const failing = newId();
  await idx.add(Array.from({ length: 200 }, () => row(failing, words(4000))));
  for (let w = 0; w < 8; w++) await idx.add(Array.from({ length: 5 }, () => row(newId(), words(50))));
  await idx.close();
  const file = textStatsFile(path, "chunks__test_embed");
  rmSync(file); // as after a crash
  // The newest version, the one the count pins (manifests are named in descending order).
  const pinned = readdirSync(versions).filter((f) => f.endsWith(".manifest")).sort()[0]!;

  const lines: string[] = [];
  const log = { info: (msg: string) => lines.push(msg), error: (msg: string) => lines.push(msg) };
  idx = await openLanceIndex(path, "test-embed", 2, { log });
  let counted = false;
  const ready = idx.textStatsReady().then((ok) => ((counted = true), ok));
  await idx.vectorCopyReady();
  // The count is pinned by a continuation of the copy's load; one turn, and it is queued first.
  await new Promise((r) => setImmediate(r));
  disk.remountReadOnly(true);
  const failed = await idx.deleteDocuments(org, [failing]).then(() => false, () => true);
  disk.remountReadOnly(false);
  setSystemTime(new Date(Date.now() + 10 * 60_000));
  await idx.optimize();
  setSystemTime();
  const kept = existsSync(join(versions, pinned));
  const optimizedWhileCounting = !counted;
  expect(failed).toBe(true);
  expect(await ready).toBe(true);
  // The same table counted again with nothing racing the count.
  const { racing, quiet } = await racingAndQuiet(idx, path, "test-embed", file);
  expect(quiet[org]!.rows).toBe(1200 + 200 + 40);
  expect(racing).toEqual(quiet);
  expect(lines.filter((l) => l.includes("could not count"))).toEqual([]);
  expect(kept).toBe(true);
  // Checked last, so that the above is reported even where the count was quick.
  expect(optimizedWhileCounting).toBe(true);
}, 180_000);
