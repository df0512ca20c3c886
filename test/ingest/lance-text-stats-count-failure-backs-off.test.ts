// A count of the text statistics that fails (here one data file of the table cut in half, as a
// damaged disk would leave it: the count reads every row, so it fails, while another
// organization's text search, reading only its own fragment, still answers) is tried again by a
// later text search. It used to be tried again by the very next search, each attempt reading the
// table in its write queue, so a table that kept failing was read again and again, holding its
// writes, and logged an error per search. Retries now back off (STATS_RETRY_MS, doubling); once
// the file is whole again a retry counts statistics equal to a table that only ever held them.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex, STATS_RETRY_MS, textStatsFile, type LanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { waitFor } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-text-stats-failing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const orgA = newId(), orgB = newId(), corpusA = newId(), corpusB = newId(), otherB = newId();
const row = (orgId: string, corpusId: string, text: string): VectorRecord =>
  ({ chunkId: newId(), orgId, corpusId, documentId: newId(), generation: 1, text, vector: Float32Array.from([1, 0]) });
const aRows = Array.from({ length: 20 }, (_, i) => row(orgA, corpusA, `alpha report number ${i} zebra`));
// B's rows in a corpus not searched count in B's statistics, not in its candidates': the two
// rankings differ, so the scores tell whether the statistics were counted.
const bRows = [
  ...Array.from({ length: 6 }, (_, i) => row(orgB, corpusB, `beta figures ${i} ${i % 2 ? "zebra" : "quokka"}`)),
  ...Array.from({ length: 30 }, (_, i) => row(orgB, otherB, `zebra zebra note ${i}`)),
];
const scores = async (idx: LanceIndex) =>
  (await idx.searchText(orgB, [corpusB], "zebra quokka", 10)).map((h) => `${h.chunkId}|${h.score.toFixed(6)}`);

test("a count that keeps failing is not retried by every text search, and is retried once it can succeed", async () => {
  const reference = await openLanceIndex(join(dir, "reference"), "test-embed", 2);
  const expected = await (async () => {
    try {
      await reference.add(bRows);
      return await scores(reference);
    } finally {
      await reference.close();
    }
  })();

  const path = join(dir, "damaged");
  let idx = await openLanceIndex(path, "test-embed", 2);
  // Closed right after the two writes (no background compaction): one data file per organization.
  await idx.add(aRows);
  await idx.add(bRows);
  await idx.close();
  const data = join(path, `${idx.tableName}.lance`, "data");
  const files = readdirSync(data).map((f) => join(data, f)).sort((x, y) => statSync(x).mtimeMs - statSync(y).mtimeMs);
  expect(files.length).toBe(2);
  const aFile = files[0]!, whole = readFileSync(aFile);
  writeFileSync(aFile, whole.subarray(0, whole.length >> 1));
  rmSync(textStatsFile(path, idx.tableName)); // as after a crash: counted from the table

  const lines: { level: string; msg: string }[] = [];
  const log = {
    info: (msg: string) => lines.push({ level: "info", msg }),
    error: (msg: string) => lines.push({ level: "error", msg }),
  };
  idx = await openLanceIndex(path, "test-embed", 2, { log });
  try {
    const started = performance.now();
    expect(await idx.textStatsReady()).toBe(false);
    for (let i = 0; i < 5; i++) {
      // B still gets answers, ranked on its candidates' statistics.
      expect((await scores(idx)).length).toBe(6);
      expect(await idx.textStatsReady()).toBe(false);
    }
    // The searches all came well within the first delay (a slower machine proves nothing here).
    if (performance.now() - started < STATS_RETRY_MS) expect(lines.filter((l) => l.level === "error").length).toBe(1);
    expect(await scores(idx)).not.toEqual(expected);

    writeFileSync(aFile, whole);
    await waitFor(async () => (await scores(idx), await idx.textStatsReady()), "a retried count to succeed", STATS_RETRY_MS * 6, 100);
    expect(await scores(idx)).toEqual(expected);
    expect(lines.at(-1)).toEqual({ level: "info", msg: "the text statistics of the vector table are counted again" });
  } finally {
    await idx.close();
  }
}, STATS_RETRY_MS * 10);
