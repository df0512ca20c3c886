// Background optimizes drop their rejection (the write that scheduled one has long returned), so
// a table that could no longer be optimized kept every old version and index file without a word.
// The first failure of a run is logged, and so is the first success after it. A real tmpfs made
// read-only between a write and the optimize it schedules gives LanceDB a genuine failure.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { openLanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";
import { waitFor } from "../helpers/server.ts";

const org = newId();
const corpus = newId();
const rows = (n: number): VectorRecord[] =>
  Array.from({ length: n }, (_, i) => ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId: newId(), generation: 1, text: `row ${i}`, vector: Float32Array.from([1, i]) }));

test.if(CAN_MOUNT)("an optimize that fails is logged once, and its recovery once", async () => {
  await using disk = smallDisk(32);
  const lines: { level: string; msg: string; table?: string }[] = [];
  const log = {
    info: (msg: string, extra?: Record<string, unknown>) => lines.push({ level: "info", msg, ...extra }),
    error: (msg: string, extra?: Record<string, unknown>) => lines.push({ level: "error", msg, ...extra }),
  };
  const ix = await openLanceIndex(join(disk.dataDir, "lance"), "optfail", 2, { log });
  try {
    // Three fragments, the last two outside the text index: the optimize has work to write.
    for (let i = 0; i < 3; i++) await ix.add(rows(1));
    // A write schedules an optimize half a second later: the disk turns read-only before it.
    disk.remountReadOnly(true);
    await waitFor(() => lines.some((l) => l.level === "error"), "the failed optimize to be logged", 20_000);
    disk.remountReadOnly(false);
    await ix.add(rows(2));
    await waitFor(() => lines.some((l) => l.level === "info"), "the recovery to be logged", 20_000);
    expect(lines.map(({ level, msg, table }) => ({ level, msg, table }))).toEqual([
      { level: "error", msg: "could not optimize the vector table; its old versions and index files stay until it succeeds, retried after the next writes", table: "chunks__optfail" },
      { level: "info", msg: "the vector table is optimized again", table: "chunks__optfail" },
    ]);
    // Nothing written was lost: every row is still found.
    expect((await ix.searchText(org, [corpus], "row", 10)).length).toBe(5);
  } finally {
    await ix.close();
  }
}, 60_000);
