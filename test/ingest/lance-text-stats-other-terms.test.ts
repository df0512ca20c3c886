// A clean close saves the text statistics next to the table (lance.ts), and the next open takes
// them when the table is at the same version. They are counted in this build's terms
// (fts-terms.ts): a build whose stemmer, stop words or folding differ, started on the same data
// (an upgrade, a rollback), took the other build's counts for its own, and ranked on them until
// the table changed. The snapshot now names its terms, and one of other terms is counted again.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex, textStatsFile, type LanceIndex } from "../../src/store/lance.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-text-stats-terms-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const orgId = newId(), corpusId = newId(), documentId = newId();
const row = (text: string): VectorRecord => ({ chunkId: newId(), orgId, corpusId, documentId, generation: 1, text, vector: Float32Array.from([1, 0]) });
const rows = [
  row("the committee reviewed the figures zebra"),
  row("the committee reviewed the figures quokka"),
  row("the committee reviewed the numbers quokka"),
  row("an unrelated note on ferries and lighthouses"),
];
const scores = async (idx: LanceIndex) => {
  const out: string[] = [];
  for (const q of ["zebra quokka", "committee figures"]) for (const h of await idx.searchText(orgId, [corpusId], q, 10)) out.push(`${q}|${h.chunkId}|${h.score.toFixed(6)}`);
  return out;
};

test("statistics saved in other terms than this build's are counted again, not taken", async () => {
  let idx = await openLanceIndex(dir, "test-embed", 2);
  await idx.add(rows);
  const counted = await scores(idx);
  await idx.close();
  // What a build of other terms would have saved for the same rows: none of this build's terms.
  const file = textStatsFile(dir, idx.tableName);
  const snap = JSON.parse(readFileSync(file, "utf8"));
  const { terms: _own, ...rest } = snap;
  for (const o of rest.stats.orgs) {
    o.terms = o.terms.map((t: string) => `${t}_other`);
    o.length *= 3;
  }
  writeFileSync(file, JSON.stringify({ ...rest, terms: "0:another-build" }));
  idx = await openLanceIndex(dir, "test-embed", 2);
  try {
    expect(await idx.textStatsReady()).toBe(true);
    expect(await scores(idx)).toEqual(counted);
  } finally {
    await idx.close();
  }
});

test("statistics saved by this build are still taken", async () => {
  const path = join(dir, "same");
  let idx = await openLanceIndex(path, "test-embed", 2);
  await idx.add(rows);
  const counted = await scores(idx);
  await idx.close();
  // Tampered in a way only a snapshot that is taken shows: its counts are used as they are.
  const file = textStatsFile(path, idx.tableName);
  const snap = JSON.parse(readFileSync(file, "utf8"));
  for (const o of snap.stats.orgs) o.length *= 3;
  writeFileSync(file, JSON.stringify(snap));
  idx = await openLanceIndex(path, "test-embed", 2);
  try {
    expect(await idx.textStatsReady()).toBe(true);
    expect(await scores(idx)).not.toEqual(counted);
  } finally {
    await idx.close();
  }
});
