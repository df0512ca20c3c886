// Memory and speed of the in-memory vector copy (src/store/vector-scan.ts) against, in the same
// run and on the same rows: the previous implementation (scripts/lib/vector-scan-previous.ts,
// per-row strings and Maps keyed by "org/id" strings) and the floor, bare typed arrays of the
// same int8 vectors and residuals (2 bytes per dimension and row) with nothing to find them by.
// The current copy runs twice: sized for the rows up front (what the load from a table does,
// from its row count) and grown from empty (what ingestion does).
//
// Each measurement runs in a fresh process (one copy's garbage must not inflate the next), the
// kinds alternate and their order rotates from round to round, because this machine is shared.
// A process fills the copy with N rows in batches of 4,096, as the load from LanceDB does (every
// id a fresh string, vectors as views into one Float32Array), then reports, per row:
//   resident   growth of VmRSS over the same process before the fill, each measured after what an
//              idle server does (runtime/release-memory.ts: a full collection, malloc_trim) and 1 s;
//              it includes what the fill's garbage leaves resident (the floor shows how much;
//              measuring again after dropping the copy was tried: the process gives back too
//              little, and too unevenly, to tell anything)
//   heap       growth of the JavaScript heap's objects (bun:jsc heapStats: heapSize minus the
//              typed arrays' storage, extraMemorySize)
//   held       the copy's own count (VectorScan.bytes, what the memory cap compares), or the
//              floor's two arrays
// and the fill time (upserts only; wall and CPU of all threads, the collector's included: the
// CPU time is the steadier figure on a shared machine), search latency p50/p99 over Q queries of
// the largest organization's three corpora (about half the rows, limit 20), the time to replace
// 200 held rows (upserts of 10) and to delete 200 documents (deleteDocument), median of 5 turns.
//
// Rows (synthetic, seeded): 5 organizations holding 50/20/15/10/5 % of the documents, 3
// corpora each, 10 chunks per document, ids shaped like store/ids.ts makes them (documents
// random UUIDv4, chunks orderedId()-like: a timestamp and counter, then random bits), vectors
// of `dims` uniform values in [-1, 1).
//
//   bun scripts/bench-vector-copy.ts [--sizes 200000,500000] [--rounds 3] [--queries 200] [--dims 384]
import { parseArgs } from "node:util";
import { heapStats } from "bun:jsc";
import { createVectorScan, SCAN_MAX_BYTES, type ScanRow, type VectorScan } from "../src/store/vector-scan.ts";
import { createVectorScan as createPrevious } from "./lib/vector-scan-previous.ts";
import { quantizeRow } from "../src/store/quantize.ts";
import { releaseMemory, rssOfSelf } from "../src/runtime/release-memory.ts";
import { loadAverage, range, runRotated } from "./lib/fresh-runs.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "200000,500000" },
    rounds: { type: "string", default: "3" },
    queries: { type: "string", default: "200" },
    dims: { type: "string", default: "384" },
    child: { type: "string" },
    rows: { type: "string" },
  },
});
const DIMS = Number(values.dims);
const Q = Number(values.queries);
/** sized: the current copy made for N rows, as the load from a table makes it; grown: the same, grown from empty as ingestion grows it. */
const KINDS = ["sized", "grown", "previous", "floor"] as const;
type Kind = (typeof KINDS)[number];
const BATCH = 4096;
const PER_DOC = 10;

interface Result {
  kind: Kind; rows: number; rssPerRow: number; heapPerRow: number; heldPerRow?: number;
  fillS: number; fillCpuS: number; p50?: number; p99?: number; replaceMs?: number; deleteMs?: number;
}

// The same rows in every process: 32-bit words.
const rng = (s: number) => {
  const next = mulberry32(s);
  return () => next() * 4294967296;
};
const hex = (n: number, digits: number) => n.toString(16).padStart(digits, "0").slice(-digits);
const uuid = (r: () => number) => {
  const [a, b, c, d] = [r(), r(), r(), r()];
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-${hex((c >>> 30) | 8, 1)}${hex(c, 3)}-${hex(d, 8)}${hex(c >>> 12, 4)}`;
};
const orderedLike = (r: () => number, i: number) => {
  const ms = 1_790_000_000_000 + Math.floor(i / 40);
  const t = hex(ms, 12);
  return `${t.slice(0, 8)}-${t.slice(8)}-4${hex(i % 4096, 3)}-${hex((r() >>> 30) | 8, 1)}${hex(r(), 3)}-${hex(r(), 12)}`;
};

const ORG_SHARE = [0.5, 0.2, 0.15, 0.1, 0.05];
function makeIds(seed: number) {
  const r = rng(seed);
  const orgs = ORG_SHARE.map(() => uuid(r));
  const corpora = orgs.map(() => [uuid(r), uuid(r), uuid(r)]);
  return { r, orgs, corpora };
}

/** Batches of rows, made on demand: the rows themselves are never all alive at once. */
function* batches(n: number, dims: number): Generator<ScanRow[]> {
  const { r, orgs, corpora } = makeIds(42);
  const vr = rng(7);
  let org = 0, corpus = "", doc = "";
  // One buffer for every batch: fresh ones would leave freed pages the allocator keeps resident
  // for a while, the same for every kind, blurring the comparison.
  const flat = new Float32Array(BATCH * dims);
  for (let at = 0; at < n; at += BATCH) {
    const k = Math.min(BATCH, n - at);
    for (let i = 0; i < k * dims; i++) flat[i] = vr() / 2 ** 31 - 1;
    const rows: ScanRow[] = [];
    for (let i = 0; i < k; i++) {
      const row = at + i;
      if (row % PER_DOC === 0) {
        const u = r() / 2 ** 32;
        org = 0;
        for (let acc = ORG_SHARE[0]!; u > acc && org < ORG_SHARE.length - 1; acc += ORG_SHARE[++org]!);
        corpus = corpora[org]![r() % 3]!;
        doc = uuid(r);
      }
      rows.push({ chunkId: orderedLike(r, row), orgId: orgs[org]!, corpusId: corpus, documentId: doc, generation: 1, vector: flat.subarray(i * dims, (i + 1) * dims) });
    }
    yield rows;
  }
}

/** What an idle server gives back (a collection, glibc's free lists), then what the process holds. */
const settle = async () => {
  Bun.gc(true);
  await releaseMemory({ gc: true });
  await Bun.sleep(1000);
  const h = heapStats();
  return { rss: rssOfSelf(), heap: h.heapSize - h.extraMemorySize };
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function child(kind: Kind, n: number): Promise<Result> {
  const before = await settle();
  const stride = Math.ceil(DIMS / 32) * 32;
  let scan: Omit<VectorScan, "bytes" | "load"> | undefined;
  let current: VectorScan | undefined;
  let floor: { coarse: Int8Array; fine: Int8Array } | undefined;
  if (kind === "floor") floor = { coarse: new Int8Array(n * stride), fine: new Int8Array(n * DIMS) };
  else if (kind === "previous") scan = createPrevious(DIMS)!;
  else scan = current = createVectorScan(DIMS, SCAN_MAX_BYTES, kind === "sized" ? n : 0)!;
  const held: ScanRow[] = []; // ~2,500 rows (1,000 distinct documents at least), for the replace and delete timings
  const sampleEvery = Math.max(1, Math.floor(n / 2500));
  let fillMs = 0, fillCpu = 0, row = 0;
  for (const rows of batches(n, DIMS)) {
    const t0 = performance.now(), c0 = process.cpuUsage();
    if (scan) {
      if (!scan.upsert(rows)) throw new Error(`${kind} refused rows at ${row}`);
    } else for (let i = 0; i < rows.length; i++) quantizeRow(rows[i]!.vector, DIMS, floor!.coarse, (row + i) * stride, floor!.fine, (row + i) * DIMS);
    fillMs += performance.now() - t0;
    const c = process.cpuUsage(c0);
    fillCpu += (c.user + c.system) / 1000;
    for (let i = 0; i < rows.length; i += sampleEvery) held.push({ ...rows[i]!, vector: Float32Array.from(rows[i]!.vector) });
    row += rows.length;
  }
  const after = await settle();
  const out: Result = {
    kind, rows: n, rssPerRow: (after.rss - before.rss) / n, heapPerRow: (after.heap - before.heap) / n, fillS: fillMs / 1000, fillCpuS: fillCpu / 1000,
  };
  if (floor) out.heldPerRow = (floor.coarse.byteLength + floor.fine.byteLength) / n;
  if (current) out.heldPerRow = current.bytes / n;
  if (!scan) return out;
  const { orgs, corpora } = makeIds(42);
  const qr = rng(99);
  const times: number[] = [];
  for (let q = 0; q < Q; q++) {
    const v = Float32Array.from({ length: DIMS }, () => qr() / 2 ** 31 - 1);
    const t0 = performance.now();
    scan.search(orgs[0]!, corpora[0]!, v, 20);
    times.push(performance.now() - t0);
  }
  out.p50 = pct(times, 0.5);
  out.p99 = pct(times, 0.99);
  // Five turns of each, the median kept: single timings of a few milliseconds swing widely here.
  const replaceMs: number[] = [], deleteMs: number[] = [];
  const docs = [...new Map(held.map((r) => [r.documentId, r])).values()];
  for (let turn = 0; turn < 5; turn++) {
    const replace = held.slice(turn * 200, turn * 200 + 200).map((r) => ({ ...r, generation: 2 }));
    let t0 = performance.now();
    for (let i = 0; i < replace.length; i += 10) scan.upsert(replace.slice(i, i + 10));
    replaceMs.push(performance.now() - t0);
    t0 = performance.now();
    for (const r of docs.slice(turn * 200, turn * 200 + 200)) scan.deleteDocument(r.orgId, r.documentId);
    deleteMs.push(performance.now() - t0);
  }
  out.replaceMs = pct(replaceMs, 0.5);
  out.deleteMs = pct(deleteMs, 0.5);
  return out;
}

if (values.child) {
  console.log(JSON.stringify(await child(values.child as Kind, Number(values.rows))));
  process.exit(0);
}

const sizes = values.sizes!.split(",").map(Number);
const rounds = Number(values.rounds);
const results = await runRotated<Result>(import.meta.path, KINDS, sizes, rounds, ["--dims", String(DIMS), "--queries", String(Q)]);

console.log(`\n${DIMS} dimensions, ${rounds} fresh processes per cell, ranges over them; load average ${await loadAverage()}\n`);
console.log("| rows | kind | resident / row | heap / row | held (own count) / row | fill, wall / CPU | search p50 / p99 | replace 200 rows | delete 200 documents |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const n of sizes) {
  for (const kind of KINDS) {
    const rs = results.filter((r) => r.rows === n && r.kind === kind);
    const col = (f: (r: Result) => number | undefined, d: number) => range(rs.map(f), d);
    console.log(`| ${n.toLocaleString("en")} | ${kind} | ${col((r) => r.rssPerRow, 0)} B | ${col((r) => r.heapPerRow, 0)} B | ${kind === "previous" ? "–" : `${col((r) => r.heldPerRow, 0)} B`} | ${col((r) => r.fillS, 2)} / ${col((r) => r.fillCpuS, 2)} s | ${kind === "floor" ? "–" : `${col((r) => r.p50, 1)} / ${col((r) => r.p99, 1)} ms`} | ${kind === "floor" ? "–" : `${col((r) => r.replaceMs, 1)} ms`} | ${kind === "floor" ? "–" : `${col((r) => r.deleteMs, 1)} ms`} |`);
  }
}
