// The count of the text statistics after a crash reads a pinned version of the table beside the
// write queue (lance.ts), and stops early when a write fails meanwhile (to start over) or the
// index closes. LanceDB's scan reads some 16 fragments ahead, holding a descriptor on each file,
// and its iterator has no close: a scan left part-read keeps those descriptors (and the batches
// read ahead) until the garbage collector happens to drop it, after the index has closed too.
// A count that stops must leave no descriptor on the table's files.
import { expect, test } from "bun:test";
import { readdirSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openLanceIndex, textStatsFile } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";

const org = newId(), corpus = newId();
const text = Array.from({ length: 3000 }, (_, i) => "w" + (i % 977).toString(36)).join(" ");
const row = (t = text): VectorRecord =>
  ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId: newId(), generation: 1, text: t, vector: Float32Array.from([1, 0]) });

test.skipIf(!CAN_MOUNT || process.platform !== "linux")("a count stopped by a failed write or by close() holds no descriptor on the table's files", async () => {
  await using disk = smallDisk(256);
  const path = join(disk.dataDir, "lance");
  /** This process's open descriptors on files of the data directory. */
  const held = () => readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(disk.dataDir);
    } catch {
      return false;
    }
  }).length;
  let idx = await openLanceIndex(path, "test-embed", 2);
  // 30 fragments: more than the scan reads ahead.
  for (let i = 0; i < 30; i++) await idx.add(Array.from({ length: 10 }, () => row()));
  await idx.close();
  const file = textStatsFile(path, idx.tableName);
  rmSync(file); // as after a crash

  // Writes failing while the count reads: each makes it stop and start over.
  idx = await openLanceIndex(path, "test-embed", 2);
  const ready = idx.textStatsReady();
  await idx.vectorCopyReady();
  let failed = 0;
  for (let i = 0; i < 3; i++) {
    disk.remountReadOnly(true);
    await idx.add([row("a failing write")]).catch(() => failed++);
    disk.remountReadOnly(false);
  }
  expect(failed).toBe(3);
  expect(await ready).toBe(true);
  const heldAfterRestarts = held();
  await idx.close();
  rmSync(file);

  // Closed while the count reads (the write is queued behind the turn that pins its version).
  idx = await openLanceIndex(path, "test-embed", 2);
  const stopped = idx.textStatsReady();
  await idx.vectorCopyReady();
  await idx.add([row("a write while counting")]);
  await idx.close();
  expect(await stopped).toBe(false);
  expect({ heldAfterRestarts, heldAfterClose: held() }).toEqual({ heldAfterRestarts: 0, heldAfterClose: 0 });
}, 120_000);
