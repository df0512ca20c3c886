// The count of the text statistics after a crash reads a pinned version beside the write queue
// (lance.ts); writes committed meanwhile are taken in when it ends, and a write that fails makes it
// start over. Here rounds of writes of every kind race the count, several at once (replacements
// coalesced into one flush across organizations, chunk ids written again, deletes by generation,
// by chunk and by document list, optimize()), and in some rounds while the count runs the disk
// turns read-only (a real tmpfs remounted) so that writes fail. Once the statistics are counted
// they must equal a count of the final table made with nothing racing it. Failures only while the
// first count runs: one after it would start a count of the final table, which hides the rest.
// Seeded: a failing seed can be replayed (KBQA_RECOUNT_SEED).
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openLanceIndex, textStatsFile, type LanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { mulberry32 } from "../helpers/seeded.ts";
import { racingAndQuiet, skewedWords } from "./text-stats-saved.ts";
import { waitFor } from "../helpers/server.ts";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";

const SEED = Number(process.env.KBQA_RECOUNT_SEED ?? 17);
const rand = mulberry32(SEED);
const VOCAB = Array.from({ length: 3000 }, (_, i) => "m" + i.toString(36) + ["x", "yy", "zzz"][i % 3]);
const words = skewedWords(rand, VOCAB);
const orgs = [newId(), newId(), newId()], corpora = orgs.map(() => newId());
const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)]!;


type Doc = { org: number; doc: string; chunks: string[]; gen: number };
const records = (o: number, doc: string, gen: number, n: number, len: number, ids?: string[]): VectorRecord[] =>
  Array.from({ length: n }, (_, i) => ({ chunkId: ids?.[i] ?? newId(), orgId: orgs[o]!, corpusId: corpora[o]!, documentId: doc, generation: gen, text: words(len), vector: Float32Array.from([1, rand()]) }));

/** One write of a random kind (or an optimize, or a search), its result left to the caller. */
function randomOp(idx: LanceIndex, docs: Doc[]): Promise<unknown> {
  const r = rand();
  if (r < 0.2) {
    const o = Math.floor(rand() * 3), doc = newId(), rs = records(o, doc, 1, 1 + Math.floor(rand() * 6), 30);
    docs.push({ org: o, doc, chunks: rs.map((x) => x.chunkId), gen: 1 });
    return idx.add(rs);
  }
  const d = pick(docs);
  if (r < 0.35) {
    const rs = records(d.org, d.doc, ++d.gen, 1 + Math.floor(rand() * 5), 40);
    d.chunks = rs.map((x) => x.chunkId);
    return idx.replaceDocument(orgs[d.org]!, d.doc, rs);
  }
  if (r < 0.5) return idx.add(records(d.org, d.doc, d.gen, Math.min(2, d.chunks.length), 25, d.chunks));
  if (r < 0.62) return idx.deleteChunks(orgs[d.org]!, d.chunks.slice(0, 1));
  if (r < 0.72) return idx.deleteDocument(orgs[d.org]!, d.doc, rand() < 0.5 ? d.gen : undefined);
  if (r < 0.85) return idx.deleteDocuments(orgs[d.org]!, docs.filter((x) => x.org === d.org).slice(0, 3).map((x) => x.doc));
  if (r < 0.93) return idx.optimize();
  return idx.searchText(orgs[0]!, [corpora[0]!], "m1x m2yy", 5);
}

test.if(CAN_MOUNT)(`writes of every kind, some failing, racing the count end exact (seed ${SEED})`, async () => {
  await using disk = smallDisk(400);
  const path = join(disk.dataDir, "lance");
  const docs: Doc[] = [];
  let idx = await openLanceIndex(path, "mixed", 2);
  for (let b = 0; b < 12; b++) {
    const batch: VectorRecord[] = [];
    for (let k = 0; k < 10; k++) {
      const o = b % 3, doc = newId(), rs = records(o, doc, 1, 8, 3000);
      docs.push({ org: o, doc, chunks: rs.map((r) => r.chunkId), gen: 1 });
      batch.push(...rs);
    }
    await idx.add(batch);
  }
  await idx.close();
  const file = textStatsFile(path, idx.tableName);
  rmSync(file); // as after a crash

  idx = await openLanceIndex(path, "mixed", 2);
  let counted = false;
  const first = idx.textStatsReady().then((ok) => ((counted = true), ok));
  let roundsWhileCounting = 0, failed = 0;
  for (let round = 0; round < 30; round++) {
    const ops = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => randomOp(idx, docs));
    const readOnly = rand() < 0.25 && !counted;
    if (readOnly) disk.remountReadOnly(true);
    failed += (await Promise.allSettled(ops)).filter((s) => s.status === "rejected").length;
    if (readOnly) disk.remountReadOnly(false);
    if (!counted) roundsWhileCounting++;
  }
  expect(await first).toBe(true);
  // A write that failed after the count ended starts another, which a search queues if a count failed.
  await waitFor(async () => (await idx.searchText(orgs[0]!, [corpora[0]!], "m1x", 3), await idx.textStatsReady()), "the statistics to be counted", 60_000, 50);
  const { racing, quiet } = await racingAndQuiet(idx, path, "mixed", file);
  expect(racing).toEqual(quiet);
  // Checked last, so that the exactness above is reported even where the count was quick.
  expect(failed).toBeGreaterThan(0);
  expect(roundsWhileCounting).toBeGreaterThan(0);
}, 120_000);
