// Query latency without answer generation: embed + vector search + BM25 search + RRF fusion +
// live filter + chunk load + prompt passages, at 10,000 and 100,000 chunks, with the time of
// each phase. The driver searches vectors in its in-memory copy (int8 scan + re-ranking,
// src/store/vector-scan.ts). Baselines in the same run: the bare driver vector search,
// LanceDB's exact search, LanceDB's IVF index (from ANN_MIN_ROWS rows; the driver's previous
// search path) and the bare BM25 search. recall@10 is measured against LanceDB's exact search
// (bypassVectorIndex, same filter) in the same run, for the in-memory copy and for a sweep of
// IVF settings. Before measuring, the index is closed and reopened, which times the load of the
// in-memory copy from the table (what a server restart costs).
//
// Corpus (synthetic, disclosed): a 20,000-word vocabulary drawn Zipf-like (index = 20000·u^2.5),
// 500 topics of 40 words each; chunks of 60–119 words, 30 % from their topic's words and 70 % from
// the Zipf draw; 20 consecutive chunks share a topic. Embedded with the built-in hashing embedder
// (384 dims). All in one organization and corpus, so the org/corpus filter keeps every row (the
// worst case for the prefilter). Three query sets, each reported on its own:
//   random      6 Zipf words: no passage is about them (near-ties everywhere, hard for an index)
//   own         12 consecutive words of a stored chunk
//   paraphrase  16 words of a chunk, a third dropped, 2 random words added, order shuffled
//
// --index picks the LanceDB index kind (default: ANN_KIND); --sweep lists "share of partitions
// probed,refine factor" settings of it measured besides ANN_SEARCH.
//
//   bun scripts/bench-query.ts [--queries 100] [--sizes 10000,100000] [--index ivf-flat|ivf-hnsw-sq|ivf-pq]
//                              [--sweep "0.8,0"]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "../src/store/db.ts";
import { orderedId } from "../src/store/ids.ts";
import { ANN_KIND, ANN_MIN_ROWS, ANN_SEARCH, annPartitions, openLanceIndex, type AnnKind, type AnnSearch } from "../src/store/lance.ts";
import { createBuiltinEmbedder } from "../src/models/builtin-embed.ts";
import type { ModelRegistry } from "../src/models/registry.ts";
import { newTimings, retrieve, type RetrievalTimings } from "../src/retrieval/retrieve.ts";
import { toPassages } from "../src/retrieval/prompt.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";

const { values } = parseArgs({
  options: {
    queries: { type: "string", default: "100" },
    sizes: { type: "string", default: "10000,100000" },
    sweep: { type: "string", default: "0.8,0" },
    index: { type: "string", default: ANN_KIND },
  },
});
const Q = Number(values.queries);
const sizes = values.sizes!.split(",").map(Number);
const sweep: AnnSearch[] = values.sweep!.split(";").map((s) => s.split(",").map(Number)).map(([probeFraction, refineFactor]) => ({ probeFraction: probeFraction!, refineFactor: refineFactor! }));
const kind = values.index as AnnKind;

// mulberry32, in 32-bit integer arithmetic. (The LCG this script used before multiplied in doubles,
// lost the low bits and cycled after ~16,000 draws: its "100,000 chunks" were a few hundred texts
// repeated at shifted offsets, near-duplicate vectors that no index can rank.)
const rand = mulberry32(42);
const VOCAB = Array.from({ length: 20000 }, (_, i) => "w" + i.toString(36) + ["alpha", "beta", "gamma", "delta", "omega"][i % 5]);
const zipf = () => VOCAB[Math.floor(VOCAB.length * Math.pow(rand(), 2.5))]!;
const TOPICS = Array.from({ length: 500 }, () => Array.from({ length: 40 }, () => VOCAB[Math.floor(rand() * VOCAB.length)]!));
const chunkText = (n: number) => {
  const topic = TOPICS[Math.floor(n / 20) % TOPICS.length]!;
  return Array.from({ length: 60 + Math.floor(rand() * 60) }, () => (rand() < 0.3 ? topic[Math.floor(rand() * topic.length)]! : zipf())).join(" ");
};
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
const slice = (text: string, n: number) => {
  const w = text.split(" ");
  const s = Math.floor(rand() * (w.length - n));
  return w.slice(s, s + n);
};
const querySets = (texts: string[]): Record<string, string[]> => ({
  random: Array.from({ length: Q }, () => Array.from({ length: 6 }, zipf).join(" ")),
  own: Array.from({ length: Q }, () => slice(pick(texts), 12).join(" ")),
  paraphrase: Array.from({ length: Q }, () => {
    const kept = slice(pick(texts), 16).filter(() => rand() > 1 / 3);
    kept.push(zipf(), zipf());
    return kept.map((w) => [rand(), w] as const).sort((a, b) => a[0] - b[0]).map(([, w]) => w).join(" ");
  }),
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

const dir = mkdtempSync(join(tmpdir(), "kbqa-bench-query-"));
const ORG = crypto.randomUUID();
const CORPUS = crypto.randomUUID();
try {
  const db = openDb(dir);
  const embedder = createBuiltinEmbedder();
  const models = { embedder: () => embedder } as unknown as ModelRegistry;
  let lance = await openLanceIndex(join(dir, "lance"), embedder.id, embedder.dims);
  const texts: string[] = [];
  const insDoc = db.query(
    "INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation) VALUES (?, ?, ?, ?, 'text/plain', 'READY', 0, 0, 'b', 1)",
  );
  const insChunk = db.query(
    "INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, body, created_at) VALUES (?, ?, ?, ?, 1, ?, '[1]', 1, '', ?, 0)",
  );

  for (const size of sizes) {
    const t0 = performance.now();
    while (texts.length < size) {
      const docId = crypto.randomUUID();
      const batch = Array.from({ length: Math.min(5000, size - texts.length) }, (_, i) => chunkText(texts.length + i));
      const vecs = await embedder.embed(batch, "passage");
      const records = batch.map((text, i) => ({ chunkId: orderedId(), orgId: ORG, corpusId: CORPUS, documentId: docId, generation: 1, text, vector: vecs[i]! }));
      db.transaction(() => {
        insDoc.run(docId, ORG, CORPUS, docId + ".txt");
        records.forEach((r, i) => insChunk.run(r.chunkId, ORG, CORPUS, docId, i, r.text));
      })();
      await lance.replaceDocument(ORG, docId, records);
      texts.push(...batch);
    }
    await lance.optimize();
    const loadS = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const ann = await lance.ensureVectorIndex(ANN_MIN_ROWS, kind);
    const annS = (performance.now() - t1) / 1000;
    await lance.close();
    const t2 = performance.now();
    lance = await openLanceIndex(join(dir, "lance"), embedder.id, embedder.dims);
    const copy = await lance.vectorCopyReady();
    const copyS = (performance.now() - t2) / 1000;
    const ctx = { db, models, vectors: lance };

    const sets = querySets(texts);
    const vecs: Record<string, Float32Array[]> = {};
    for (const [name, qs] of Object.entries(sets)) vecs[name] = await embedder.embed(qs, "query");

    // Each measure is one pass over a query set after one warm-up pass of the same calls.
    const time = async (n: number, fn: (i: number) => Promise<unknown>) => {
      for (let i = 0; i < n; i++) await fn(i);
      const xs: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await fn(i);
        xs.push(performance.now() - t);
      }
      const cpu = process.cpuUsage(cpu0);
      return { xs, cpu: (cpu.user + cpu.system) / 1000 / n };
    };

    console.log(`\n## ${size.toLocaleString("en")} chunks (loaded in ${loadS.toFixed(1)} s; in-memory copy: ${copy ? `reopened and loaded in ${copyS.toFixed(1)} s` : "UNAVAILABLE, LanceDB answers"}; LanceDB index: ${ann ? `${kind}, ${annPartitions(size, kind)} partitions, built in ${annS.toFixed(1)} s; baseline probes ${ANN_SEARCH.probeFraction * 100} % of partitions, refine ×${ANN_SEARCH.refineFactor}` : "none, exact scan"}; RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB)`);
    console.log(`| query set | measure (${Q} queries) | p50 | p99 | CPU/query |\n|---|---|---|---|---|`);
    const recallLines: string[] = [];
    for (const [name, qs] of Object.entries(sets)) {
      const qv = vecs[name]!;
      const phases: RetrievalTimings[] = [];
      const full = await time(Q, async (i) => {
        const timings = newTimings();
        const out = toPassages(await retrieve(ctx, ORG, [CORPUS], qs[i]!, { topK: 8, timings }));
        phases.push(timings);
        return out;
      });
      // The same step on the previous search path: LanceDB's IVF index at ANN_SEARCH for vectors.
      const viaIvf = { db, models, vectors: { ...lance, searchVector: (o: string, c: string[], v: Float32Array, n: number) => lance.searchVector(o, c, v, n, { ann: ANN_SEARCH }) } };
      const rows: [string, { xs: number[]; cpu: number }][] = [
        ["full retrieval step (embed + 2 searches + RRF + live filter + load + passages)", full],
        ...(ann ? [[`baseline: the same full step, vectors from LanceDB ${kind} ${ANN_SEARCH.probeFraction * 100} % (previous path)`, await time(Q, (i) => retrieve(viaIvf, ORG, [CORPUS], qs[i]!, { topK: 8 }).then(toPassages))] as [string, { xs: number[]; cpu: number }]] : []),
        ["baseline: raw vector search, driver (in-memory copy) (limit 32)", await time(Q, (i) => lance.searchVector(ORG, [CORPUS], qv[i]!, 32))],
        ...(ann ? [[`baseline: raw vector search, LanceDB ${kind} ${ANN_SEARCH.probeFraction * 100} % (limit 32)`, await time(Q, (i) => lance.searchVector(ORG, [CORPUS], qv[i]!, 32, { ann: ANN_SEARCH }))] as [string, { xs: number[]; cpu: number }]] : []),
        ["baseline: raw vector search, LanceDB exact (limit 32)", await time(Q, (i) => lance.searchVector(ORG, [CORPUS], qv[i]!, 32, { exact: true }))],
        ["baseline: raw BM25 search (limit 32)", await time(Q, (i) => lance.searchText(ORG, [CORPUS], qs[i]!, 32))],
      ];
      for (const [label, r] of rows) console.log(`| ${name} | ${label} | ${ms(pct(r.xs, 50))} | ${ms(pct(r.xs, 99))} | ${ms(r.cpu)} |`);
      const measured = phases.slice(-Q);
      for (const k of ["embed", "vector", "text", "fuse", "live"] as const) {
        const xs = measured.map((t) => t[k]);
        console.log(`| ${name} | phase inside the full step: ${k} | ${ms(pct(xs, 50))} | ${ms(pct(xs, 99))} | |`);
      }
      const rounds = measured.filter((t) => t.rounds > 1).length;
      if (rounds) console.log(`| ${name} | queries that needed a deeper second round | ${rounds} | | |`);

      // Recall@10 against LanceDB's exact search with the same filter: the driver's in-memory
      // copy, then (when built) LanceDB's index at the previous setting and the sweep.
      const exact: Set<string>[] = [];
      for (const v of qv) exact.push(new Set((await lance.searchVector(ORG, [CORPUS], v, 10, { exact: true })).map((h) => h.chunkId)));
      for (const s of [undefined, ...(ann ? [ANN_SEARCH, ...sweep] : [])]) {
        // Recall is counted in a plain pass of its own, time on time()'s passes. (Counted inside
        // the timed closure, under load, one run in three reported a whole query set near 0 while
        // the same expression evaluated again gave the right count: a miscount, not the search.)
        let found = 0;
        for (let i = 0; i < Q; i++) {
          const got = (await lance.searchVector(ORG, [CORPUS], qv[i]!, 10, s && { ann: s })).map((h) => h.chunkId);
          const want = [...exact[i]!];
          for (const id of got) if (want.includes(id)) found++;
        }
        const r = await time(Q, (i) => lance.searchVector(ORG, [CORPUS], qv[i]!, 10, s && { ann: s }));
        const label = s ? `LanceDB ${kind}, ${s.probeFraction * 100} % of partitions, refine ${s.refineFactor}${s === ANN_SEARCH ? " (previous driver setting)" : ""}` : "driver: in-memory copy, int8 + re-ranking";
        recallLines.push(`| ${name} | ${label} | ${(found / (Q * 10)).toFixed(3)} | ${ms(pct(r.xs, 50))} | ${ms(pct(r.xs, 99))} |`);
      }
    }
    if (recallLines.length) {
      console.log(`\nrecall@10 against LanceDB's exact search (same filter, same run), vector search limit 10:`);
      console.log(`| query set | search | recall@10 | p50 | p99 |\n|---|---|---|---|---|`);
      console.log(recallLines.join("\n"));
    }
  }
  await lance.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
