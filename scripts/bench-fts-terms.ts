/**
 * Splitting text into LanceDB's full-text terms (src/store/fts-terms.ts) and what is built on it
 * (src/store/scoped-bm25.ts: counting a chunk into the statistics, ranking the candidates of a
 * text query), against the version before the single-pass scanner (scripts/lib/fts-terms-previous.ts,
 * scripts/lib/scoped-bm25-previous.ts) in the same process, turns alternating:
 *
 *   bun scripts/bench-fts-terms.ts [--rounds 15]
 *
 * Texts: this repository's README.md cut into chunks of 90 words (English prose with code, tables
 * and some non-ASCII punctuation, as documents are) and into slices of 9,500 characters (the
 * largest chunks); bench-text-stats.ts's synthetic chunks (60–119 words drawn Zipf-like from
 * 20,000 made-up words); and chunks of words never seen before (every token a cache miss: the
 * cost of new vocabulary, and of a flood of unique words). Each figure is the median over the
 * rounds; every round runs both versions over the same texts, warmed up except for the unseen words.
 * Times are the process's CPU time (user + system), which other work on the machine disturbs less
 * than the wall clock.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { forEachTerm } from "../src/store/fts-terms.ts";
import { rankScoped, TextStats, type Candidate } from "../src/store/scoped-bm25.ts";
import { forEachTermPrevious } from "./lib/fts-terms-previous.ts";
import { rankScopedPrevious, TextStatsPrevious } from "./lib/scoped-bm25-previous.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "15" } } });
const ROUNDS = Number(values.rounds);

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const words = readme.split(/\s+/).filter(Boolean);
const prose: string[] = [];
for (let i = 0; i + 90 <= words.length; i += 90) prose.push(words.slice(i, i + 90).join(" "));
const large: string[] = [];
for (let i = 0; i + 9500 <= readme.length; i += 9500) large.push(readme.slice(i, i + 9500));

const rand = mulberry32(42);
const VOCAB = Array.from({ length: 20000 }, (_, i) => "w" + i.toString(36) + ["alpha", "beta", "gamma", "delta", "omega"][i % 5]);
const zipf = () => VOCAB[Math.floor(VOCAB.length * Math.pow(rand(), 2.5))]!;
const synthetic = Array.from({ length: 1000 }, () => Array.from({ length: 60 + Math.floor(rand() * 60) }, zipf).join(" "));
let fresh = 0;
const unseenWord = () => "q" + (fresh++).toString(36) + "ing";
const unseen = () => Array.from({ length: 100 }, () => Array.from({ length: 90 }, unseenWord).join(" "));

type Split = (text: string, each: (t: string) => void) => void;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Milliseconds of CPU time since `from` (a process.cpuUsage() reading). */
const cpuMs = (from: NodeJS.CpuUsage) => { const u = process.cpuUsage(from); return (u.user + u.system) / 1000; };

/** Terms per second of one pass over the texts. */
function splitRate(split: Split, texts: string[]): number {
  let n = 0;
  const each = () => { n++; };
  const t0 = process.cpuUsage();
  for (const t of texts) split(t, each);
  return n / (cpuMs(t0) / 1000);
}

const rows: [string, string, string, string][] = [];
function compare(what: string, unit: string, measure: (previous: boolean) => number, higherBetter: boolean, digits = 2) {
  const prev: number[] = [], next: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which goes first, so neither always runs on the other's garbage.
    if (r % 2) { next.push(measure(false)); prev.push(measure(true)); }
    else { prev.push(measure(true)); next.push(measure(false)); }
  }
  const p = median(prev), c = median(next);
  rows.push([what, `${p.toFixed(digits)} ${unit}`, `${c.toFixed(digits)} ${unit}`, `${(higherBetter ? c / p : p / c).toFixed(1)}×`]);
}

const splitters = (previous: boolean): Split => (previous ? forEachTermPrevious : forEachTerm);
for (const [what, texts] of [["README prose, chunks of 90 words", prose], ["README, slices of 9,500 characters", large], ["synthetic chunks (bench-text-stats)", synthetic]] as const) {
  for (const p of [true, false]) splitRate(splitters(p), texts);
  compare(`split: ${what}`, "M terms/s", (p) => splitRate(splitters(p), texts) / 1e6, true);
}
compare("split: unseen words, 100 chunks of 90", "M terms/s", (p) => splitRate(splitters(p), unseen()) / 1e6, true);

const count = (previous: boolean, texts: string[]) => {
  const s = previous ? new TextStatsPrevious() : new TextStats();
  const t0 = process.cpuUsage();
  for (const t of texts) s.add("org", t);
  return cpuMs(t0);
};
compare("count 1,000 synthetic chunks into the statistics", "ms", (p) => count(p, synthetic), false, 1);
compare(`count ${prose.length} README prose chunks into the statistics`, "ms", (p) => count(p, prose), false, 1);

// A text query ranks its 64 candidates: bench-query's query kinds over synthetic candidates.
const stats = new TextStats(), statsPrevious = new TextStatsPrevious();
for (const t of synthetic) { stats.add("org", t); statsPrevious.add("org", t); }
const pools = Array.from({ length: 50 }, (_, q) => {
  const candidates: Candidate[] = Array.from({ length: 64 }, (_, i) => ({ chunkId: `c${q}-${i}`, documentId: "d", corpusId: "c", text: synthetic[(q * 64 + i) % synthetic.length]! }));
  const query = q % 2 ? Array.from({ length: 6 }, zipf).join(" ") : candidates[0]!.text.split(" ").slice(0, 12).join(" ");
  return { query, candidates };
});
const rank = (previous: boolean) => {
  const t0 = process.cpuUsage();
  for (const { query, candidates } of pools) {
    if (previous) rankScopedPrevious(query, candidates, statsPrevious.of("org"), 32);
    else rankScoped(query, candidates, stats.of("org"), 32);
  }
  return (cpuMs(t0) * 1000) / pools.length;
};
for (const p of [true, false]) rank(p);
compare("rankScoped, 64 synthetic candidates, per query", "µs", rank, false, 0);
const largePools = Array.from({ length: 10 }, (_, q) => ({ query: "vector search latency memory", candidates: Array.from({ length: 64 }, (_, i) => ({ chunkId: `l${q}-${i}`, documentId: "d", corpusId: "c", text: large[(q + i) % large.length]! })) }));
const rankLarge = (previous: boolean) => {
  const t0 = process.cpuUsage();
  for (const { query, candidates } of largePools) {
    if (previous) rankScopedPrevious(query, candidates, statsPrevious.of("org"), 32);
    else rankScoped(query, candidates, stats.of("org"), 32);
  }
  return (cpuMs(t0) * 1000) / largePools.length;
};
for (const p of [true, false]) rankLarge(p);
compare("rankScoped, 64 candidates of 9,500 characters, per query", "µs", rankLarge, false, 0);

console.log(`${prose.length} prose chunks, ${large.length} slices of 9,500 characters, ${synthetic.length} synthetic chunks; median of ${ROUNDS} rounds, versions alternating, CPU time\n`);
console.log("| what | previous | now | speed-up |\n|---|---|---|---|");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
