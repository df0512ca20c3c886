/**
 * What counting the text statistics from the table costs after a crash (no valid snapshot of
 * them, lance.ts), against reading the same columns from LanceDB with no counting, in one run:
 *
 *   RUST_LOG=error bun scripts/bench-text-recount.ts [--chunks 100000] [--runs 3]
 *
 * The table is written once through the driver (bench-text-stats.ts's synthetic chunks: 60–119
 * words, 10 per document, 384 dimensions, 5 organizations) and optimized. Then, each run, in turn:
 *  - raw scan: LanceDB's scan of orgId and text, batches only touched (what no counting costs);
 *  - scan + copy: the same, with every row's organization id and text made JavaScript strings
 *    (what the driver does with a batch before counting it);
 *  - counting alone: those strings counted into a TextStats, no I/O;
 *  - the driver after a crash: the saved statistics removed, the table opened, and, right after
 *    opening, one document (10 chunks) replaced, as an ingestion finishing would: the time until
 *    the statistics are counted, until that write is committed, and until the vector copy is loaded.
 *    The write is queued after the copy's load; whether it also waits for the count is what the
 *    driver decides (it did until the count moved beside the write queue).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as lancedb from "@lancedb/lancedb";
import { openLanceIndex, textStatsFile } from "../src/store/lance.ts";
import { TextStats } from "../src/store/scoped-bm25.ts";
import { DIMS, PER_DOC, syntheticChunks } from "./lib/synthetic-chunks.ts";

const { values } = parseArgs({ options: { chunks: { type: "string", default: "100000" }, runs: { type: "string", default: "3" } } });
const N = Number(values.chunks), RUNS = Number(values.runs);
const { docs, records } = syntheticChunks(N);

const dir = mkdtempSync(join(tmpdir(), "kbqa-bench-text-recount-"));
const EMBEDDER = "bench-text-recount";
const s = (ms: number) => (ms / 1000).toFixed(2) + " s";
const load = () => (require("node:os").loadavg() as number[]).map((x) => x.toFixed(1)).join(" ");

type Batch = { numRows: number; getChild(name: string): { get(i: number): unknown } | null };
async function scan(copy: boolean): Promise<{ ms: number; rows: number; orgs: string[]; texts: string[] }> {
  const conn = await lancedb.connect(dir);
  const t = await conn.openTable((await conn.tableNames())[0]!);
  const orgs: string[] = [], texts: string[] = [];
  let rows = 0;
  const t0 = performance.now();
  for await (const b of t.query().select(["orgId", "text"]) as AsyncIterable<Batch>) {
    rows += b.numRows;
    if (!copy) continue;
    const o = b.getChild("orgId")!, x = b.getChild("text")!;
    for (let i = 0; i < b.numRows; i++) {
      orgs.push(String(o.get(i)));
      texts.push(String(x.get(i) ?? ""));
    }
  }
  const ms = performance.now() - t0;
  t.close();
  conn.close();
  return { ms, rows, orgs, texts };
}

try {
  let idx = await openLanceIndex(dir, EMBEDDER, DIMS);
  const tb = performance.now();
  for (let i = 0; i < docs.length; i += 100) {
    await Promise.all(docs.slice(i, i + 100).map((d) => idx.replaceDocument(d.org, d.doc, records(d, 1))));
  }
  await idx.optimize();
  const tableName = idx.tableName;
  await idx.close();
  console.log(`${N.toLocaleString("en")} chunks of 60–119 words, ${PER_DOC} per document, ${DIMS} dimensions, 5 organizations; written in ${s(performance.now() - tb)}\n`);
  console.log("| run | load avg | raw scan (orgId, text) | scan + copy to strings | counting alone | driver: statistics counted | write queued at open committed | vector copy loaded |");
  console.log("|---|---|---|---|---|---|---|---|");
  const victim = docs[0]!;
  for (let r = 0; r < RUNS; r++) {
    const la = load();
    const raw = await scan(false);
    const copied = await scan(true);
    if (raw.rows !== copied.rows) throw new Error("the two scans read different row counts");
    const st = new TextStats();
    const tc = performance.now();
    for (let i = 0; i < copied.orgs.length; i++) st.add(copied.orgs[i]!, copied.texts[i]!);
    const counting = performance.now() - tc;
    copied.orgs.length = copied.texts.length = 0;

    rmSync(textStatsFile(dir, tableName), { force: true }); // as after a crash
    const t0 = performance.now();
    idx = await openLanceIndex(dir, EMBEDDER, DIMS);
    const write = idx.replaceDocument(victim.org, victim.doc, records(victim, 2 + r)).then(() => performance.now() - t0);
    const counted = idx.textStatsReady().then((ok) => {
      if (!ok) throw new Error("the statistics were not counted");
      return performance.now() - t0;
    });
    const copy = idx.vectorCopyReady().then(() => performance.now() - t0);
    const [c, w, v] = await Promise.all([counted, write, copy]);
    await idx.close();
    console.log(`| ${r + 1} | ${la} | ${s(raw.ms)} | ${s(copied.ms)} | ${s(counting)} | ${s(c)} | ${s(w)} | ${s(v)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
