/**
 * How much of the text-ranking side channel is left (README, "Text ranking statistics are the
 * organization's own"). The driver ranks the full-text index's best max(4 × limit, 64) candidates
 * again on the caller's own statistics; which chunks become candidates is still the index's
 * choice, on the statistics of the whole table. So another organization's rows can still change
 * one's results when they push a chunk of one's true top out of those candidates.
 *
 *   bun scripts/probe-ranking-residual.ts [--b 5000] [--a 50000] [--queries 200]
 *
 * Organization B holds `--b` synthetic chunks (bench-query.ts's generator: 20,000-word Zipf-like
 * vocabulary, 500 topics). Two tables are filled: B alone, and B beside organization A's `--a`
 * chunks. A's words are drawn from the same vocabulary, skewed the other way (A's commonest words
 * are B's rarest): the adversarial case, where the shared statistics differ most from B's own.
 * For each of B's queries (6 random Zipf words; 12 consecutive words of a chunk of B) at the
 * retrieval step's depth for topK 8 (limit 32), it compares B's result with A present against B's
 * result alone: for the driver (rescored) with candidate pools of 32 to 256 (the default is
 * max(2 × limit, 64) = 64) and, as the previous behaviour, LanceDB's own ranking (the same
 * filtered full-text query, read straight from the table).
 */
import * as lancedb from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openLanceIndex, TEXT_CANDIDATE_FACTOR, TEXT_CANDIDATES_MIN, type LanceIndex } from "../src/store/lance.ts";
import { newId } from "../src/store/ids.ts";
import type { VectorRecord } from "../src/store/vector.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";

const { values } = parseArgs({ options: { b: { type: "string", default: "5000" }, a: { type: "string", default: "50000" }, queries: { type: "string", default: "200" } } });
const NB = Number(values.b), NA = Number(values.a), Q = Number(values.queries);
const LIMIT = 32, TOP = 8;

const rand = mulberry32(7);
const VOCAB = Array.from({ length: 20000 }, (_, i) => "w" + i.toString(36) + ["alpha", "beta", "gamma", "delta", "omega"][i % 5]);
const zipfIndex = () => Math.floor(VOCAB.length * Math.pow(rand(), 2.5));
const zipfB = () => VOCAB[zipfIndex()]!;
const zipfA = () => VOCAB[VOCAB.length - 1 - zipfIndex()]!;
const TOPICS = Array.from({ length: 500 }, () => Array.from({ length: 40 }, () => VOCAB[Math.floor(rand() * VOCAB.length)]!));
const chunkText = (n: number, draw: () => string) => {
  const topic = TOPICS[Math.floor(n / 20) % TOPICS.length]!;
  return Array.from({ length: 60 + Math.floor(rand() * 60) }, () => (rand() < 0.3 ? topic[Math.floor(rand() * topic.length)]! : draw())).join(" ");
};

const orgA = newId(), orgB = newId(), corpusA = newId(), corpusB = newId();
const rows = (org: string, corpus: string, texts: string[]): VectorRecord[] => {
  const doc = newId();
  return texts.map((text) => ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId: doc, generation: 1, text, vector: Float32Array.from([1, 0]) }));
};
const bTexts = Array.from({ length: NB }, (_, i) => chunkText(i, zipfB));
const aTexts = Array.from({ length: NA }, (_, i) => chunkText(i + 7, zipfA));
const bRows = rows(orgB, corpusB, bTexts);
const aRows = rows(orgA, corpusA, aTexts);

const queries: Record<string, string[]> = {
  random: Array.from({ length: Q }, () => Array.from({ length: 6 }, zipfB).join(" ")),
  own: Array.from({ length: Q }, () => {
    const w = bTexts[Math.floor(rand() * bTexts.length)]!.split(" ");
    const s = Math.floor(rand() * (w.length - 12));
    return w.slice(s, s + 12).join(" ");
  }),
};

const root = mkdtempSync(join(tmpdir(), "kbqa-residual-"));
async function fill(name: string, parts: VectorRecord[][]): Promise<{ idx: LanceIndex; table: lancedb.Table; conn: lancedb.Connection }> {
  const dir = join(root, name);
  const idx = await openLanceIndex(dir, "residual", 2);
  for (const part of parts) for (let i = 0; i < part.length; i += 5000) await idx.add(part.slice(i, i + 5000));
  await idx.optimize();
  const conn = await lancedb.connect(dir);
  return { idx, conn, table: await conn.openTable(idx.tableName) };
}
const alone = await fill("alone", [bRows]);
const shared = await fill("shared", [aRows, bRows]);

const where = `orgId = '${orgB}' AND corpusId IN ('${corpusB}')`;
const raw = async (t: lancedb.Table, q: string) =>
  (await t.query().fullTextSearch(q, { columns: ["text"] }).where(where).select(["chunkId", "_score"]).limit(LIMIT).toArray()).map((r) => String(r.chunkId));
const driver = async (idx: LanceIndex, q: string, candidates?: number) => (await idx.searchText(orgB, [corpusB], q, LIMIT, { candidates })).map((h) => h.chunkId);

console.log(`B: ${NB.toLocaleString("en")} chunks; A: ${NA.toLocaleString("en")} chunks, words skewed the other way; limit ${LIMIT}, ${Q} queries per set`);
console.log(`| query set | ranking | top ${TOP} differs (order) | top ${TOP} differs (set) | top ${LIMIT} differs (set) | B's top-${TOP} chunks lost |\n|---|---|---|---|---|---|`);
for (const [set, qs] of Object.entries(queries)) {
  const runs: [string, (x: typeof alone, q: string) => Promise<string[]>][] = [
    ["LanceDB alone (previous)", (x, q) => raw(x.table, q)],
    ...[32, 64, 128, 256].map((c): [string, (x: typeof alone, q: string) => Promise<string[]>] =>
      [`driver, ${c} candidates${c === Math.max(LIMIT * TEXT_CANDIDATE_FACTOR, TEXT_CANDIDATES_MIN) ? " (default)" : ""}`, (x, q) => driver(x.idx, q, c)]),
  ];
  for (const [label, run] of runs) {
    let order = 0, set8 = 0, setAll = 0, lost = 0, total = 0;
    for (const q of qs) {
      const [x, y] = [await run(alone, q), await run(shared, q)];
      const top = x.slice(0, TOP), topY = new Set(y.slice(0, TOP));
      if (JSON.stringify(top) !== JSON.stringify(y.slice(0, TOP))) order++;
      if (top.some((id) => !topY.has(id))) set8++;
      const all = new Set(y);
      if (x.length !== y.length || x.some((id) => !all.has(id))) setAll++;
      lost += top.filter((id) => !topY.has(id)).length;
      total += top.length;
    }
    const pc = (n: number, of = qs.length) => `${((100 * n) / of).toFixed(1)} %`;
    console.log(`| ${set} | ${label} | ${pc(order)} | ${pc(set8)} | ${pc(setAll)} | ${pc(lost, total)} |`);
  }
}
for (const x of [alone, shared]) {
  await x.idx.close();
  x.table.close();
  x.conn.close();
}
rmSync(root, { recursive: true, force: true });
