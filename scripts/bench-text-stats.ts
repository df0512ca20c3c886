/**
 * What the per-organization text statistics (store/scoped-bm25.ts) cost the driver's writes and
 * its start, measured through the driver alone (no server), so that the same script runs on a
 * checkout without them as the baseline (copy scripts/lib/synthetic-chunks.ts beside it there too):
 *
 *   bun scripts/bench-text-stats.ts [--chunks 100000] [--docs-per-round 200]
 *
 * Chunks are bench-query.ts's synthetic texts (60–119 words, Zipf-like over 20,000 words), 10 per
 * document, 384-dimension random vectors, 5 organizations. Timed: first writes (replaceDocument
 * of documents that have no rows yet, 100 documents = 1,000 chunks at a time, awaited together as
 * ingestion does); replacing documents that have rows (their old rows are read first, to be
 * subtracted); deleting documents; then, after closing and opening the table again, the time
 * until the first text search answers, until the statistics are counted (textStatsReady) and
 * until the vector copy is loaded; and, where the statistics exist, counting 1,000 chunks' text
 * alone.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openLanceIndex, type LanceIndex } from "../src/store/lance.ts";
import { DIMS, PER_DOC, syntheticChunks } from "./lib/synthetic-chunks.ts";

const { values } = parseArgs({ options: { chunks: { type: "string", default: "100000" }, "docs-per-round": { type: "string", default: "200" } } });
const N = Number(values.chunks), ROUND = Number(values["docs-per-round"]);
const { zipf, text, orgs: ORGS, docs, records } = syntheticChunks(N);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const per1000 = (ms: number[], chunksEach: number) => ms.map((x) => (x * 1000) / chunksEach);
const line = (what: string, xs: number[]) => console.log(`| ${what} | ${pct(xs, 50).toFixed(1)} ms | ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} ms | ${xs.length} |`);

const dir = mkdtempSync(join(tmpdir(), "kbqa-bench-text-stats-"));
try {
  let idx: LanceIndex = await openLanceIndex(dir, "bench-text-stats", DIMS);
  await idx.vectorCopyReady();
  const first: number[] = [];
  const batch = 1000 / PER_DOC;
  for (let i = 0; i < docs.length; i += batch) {
    const part = docs.slice(i, i + batch).map((d) => [d, records(d, 1)] as const);
    const t0 = performance.now();
    await Promise.all(part.map(([d, rs]) => idx.replaceDocument(d.org, d.doc, rs)));
    first.push(performance.now() - t0);
  }
  await idx.optimize();
  const replaced: number[] = [];
  const deleted: number[] = [];
  for (let r = 0; r < 5; r++) {
    const part = docs.slice(r * ROUND, (r + 1) * ROUND).map((d) => [d, records(d, 2)] as const);
    let t0 = performance.now();
    await Promise.all(part.map(([d, rs]) => idx.replaceDocument(d.org, d.doc, rs)));
    replaced.push(performance.now() - t0);
    const gone = docs.slice(docs.length - (r + 1) * ROUND, docs.length - r * ROUND);
    t0 = performance.now();
    for (const o of ORGS) await idx.deleteDocuments(o.org, gone.filter((d) => d.org === o.org).map((d) => d.doc));
    deleted.push(performance.now() - t0);
  }
  await idx.close();
  const t0 = performance.now();
  idx = await openLanceIndex(dir, "bench-text-stats", DIMS);
  await idx.searchText(ORGS[0]!.org, [ORGS[0]!.corpus], zipf(), 8);
  const textReady = performance.now() - t0;
  // Absent from a checkout without the statistics (the baseline).
  const counted = "textStatsReady" in idx ? await (idx as { textStatsReady(): Promise<boolean> }).textStatsReady() : undefined;
  const statsReady = performance.now() - t0;
  await idx.vectorCopyReady();
  const copyReady = performance.now() - t0;
  await idx.close();

  console.log(`${N.toLocaleString("en")} chunks of 60–119 words, ${PER_DOC} per document, ${DIMS} dimensions, 5 organizations\n`);
  console.log(`| step (per 1,000 chunks unless said) | p50 | range | runs |\n|---|---|---|---|`);
  line("first write of 100 documents (1,000 chunks)", first);
  line(`replacing ${ROUND} documents that have rows, per 1,000 chunks`, per1000(replaced, ROUND * PER_DOC));
  line(`deleting ${ROUND} documents, per 1,000 chunks`, per1000(deleted, ROUND * PER_DOC));
  console.log(`\nafter reopening: first text search answered in ${(textReady / 1000).toFixed(2)} s, ${counted === undefined ? "no text statistics" : `text statistics ${counted ? "counted" : "NOT counted"} in ${(statsReady / 1000).toFixed(2)} s`}, vector copy loaded in ${(copyReady / 1000).toFixed(2)} s (queued after the saved statistics are read)`);
  try {
    const { TextStats } = await import("../src/store/scoped-bm25.ts" as string);
    const texts = Array.from({ length: 1000 }, text);
    const runs: number[] = [];
    for (let r = 0; r < 20; r++) {
      const s = new TextStats();
      const t = performance.now();
      for (const x of texts) s.add("org", x);
      runs.push(performance.now() - t);
    }
    line("counting 1,000 chunks' text in the statistics alone", runs);
  } catch {
    console.log("(no text statistics in this checkout)");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
