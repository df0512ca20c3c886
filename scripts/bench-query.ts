// Query latency without answer generation: embed + vector search + BM25 search + RRF fusion +
// live filter + chunk load + prompt passages, at 10,000 and 100,000 chunks. Baseline in the
// same run: the bare LanceDB vector search and the bare BM25 search. At 100k the driver builds
// its approximate vector index (IVF-HNSW-SQ); recall@10 is measured against exact search.
//
//   bun scripts/bench-query.ts [--queries 200] [--sizes 10000,100000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "../src/store/db.ts";
import { orderedId } from "../src/store/ids.ts";
import { openLanceIndex } from "../src/store/lance.ts";
import { createBuiltinEmbedder } from "../src/models/builtin-embed.ts";
import type { ModelRegistry } from "../src/models/registry.ts";
import { retrieve } from "../src/retrieval/retrieve.ts";
import { toPassages } from "../src/retrieval/prompt.ts";

const { values } = parseArgs({ options: { queries: { type: "string", default: "200" }, sizes: { type: "string", default: "10000,100000" } } });
const Q = Number(values.queries);
const sizes = values.sizes!.split(",").map(Number);

// A vocabulary with a Zipf-like draw gives BM25 realistic posting lists.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const VOCAB = Array.from({ length: 5000 }, (_, i) => "w" + i.toString(36) + ["alpha", "beta", "gamma", "delta", "omega"][i % 5]);
const word = () => VOCAB[Math.floor(VOCAB.length * Math.pow(rand(), 2.5))]!;
const sentence = (n: number) => Array.from({ length: n }, word).join(" ");

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

const dir = mkdtempSync(join(tmpdir(), "kbqa-bench-query-"));
const ORG = crypto.randomUUID();
const CORPUS = crypto.randomUUID();
try {
  const db = openDb(dir);
  const embedder = createBuiltinEmbedder();
  const models = { embedder: () => embedder } as unknown as ModelRegistry;
  const lance = await openLanceIndex(join(dir, "lance"), embedder.id, embedder.dims);
  const ctx = { db, models, vectors: lance };
  const all: { id: string; v: Float32Array }[] = [];
  const queries = Array.from({ length: Q }, () => sentence(6));
  const insDoc = db.query(
    "INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation) VALUES (?, ?, ?, ?, 'text/plain', 'READY', 0, 0, 'b', 1)",
  );
  const insChunk = db.query(
    "INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, body, created_at) VALUES (?, ?, ?, ?, 1, ?, '[1]', 1, '', ?, 0)",
  );

  for (const size of sizes) {
    const t0 = performance.now();
    while (all.length < size) {
      const docId = crypto.randomUUID();
      const n = Math.min(5000, size - all.length);
      const texts = Array.from({ length: n }, () => sentence(60 + Math.floor(rand() * 60)));
      const vecs = await embedder.embed(texts, "passage");
      const records = texts.map((text, i) => ({ chunkId: orderedId(), orgId: ORG, corpusId: CORPUS, documentId: docId, generation: 1, text, vector: vecs[i]! }));
      db.transaction(() => {
        insDoc.run(docId, ORG, CORPUS, docId + ".txt");
        records.forEach((r, i) => insChunk.run(r.chunkId, ORG, CORPUS, docId, i, r.text));
      })();
      await lance.add(records);
      for (const r of records) all.push({ id: r.chunkId, v: r.vector });
    }
    await lance.optimize();
    const ann = await lance.ensureVectorIndex();
    const loadS = ((performance.now() - t0) / 1000).toFixed(1);

    const qv = await embedder.embed(queries, "query");
    // Every measured pass runs after one warm-up pass over the same queries, and each pass is
    // separate, so no measure profits from a cache the previous call just filled.
    for (const q of queries) await retrieve(ctx, ORG, [CORPUS], q, { topK: 8 });
    const time = async (fn: (i: number) => Promise<unknown>) => {
      const xs: number[] = [];
      for (let i = 0; i < Q; i++) {
        const t = performance.now();
        await fn(i);
        xs.push(performance.now() - t);
      }
      return xs;
    };
    const rawVec = await time((i) => lance.searchVector(ORG, [CORPUS], qv[i]!, 32));
    const rawText = await time((i) => lance.searchText(ORG, [CORPUS], queries[i]!, 32));
    const full = await time(async (i) => toPassages(await retrieve(ctx, ORG, [CORPUS], queries[i]!, { topK: 8 })));
    // Where the time goes: the query embedding, and the SQLite side (live filter + text of 64
    // candidates, the most two lists of 32 can fuse to) on its own.
    const embedOnly = await time((i) => embedder.embed([queries[i]!], "query"));
    const sqlite = await time(async (i) => {
      const ids = Array.from({ length: 64 }, (_, j) => all[(i * 997 + j * 131) % all.length]!.id);
      return db.query("SELECT c.id, c.body, d.filename FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN (SELECT value FROM json_each(?)) AND c.org_id = ? AND c.deleted_at IS NULL").all(JSON.stringify(ids), ORG);
    });

    // Recall@10 of the index the driver uses against exact cosine top-10 over every vector.
    let found = 0;
    const R = Math.min(Q, 50);
    for (let i = 0; i < R; i++) {
      const q = qv[i]!;
      const exact = all
        .map(({ id, v }) => {
          let d = 0;
          for (let j = 0; j < q.length; j++) d += q[j]! * v[j]!;
          return { id, d };
        })
        .sort((a, b) => b.d - a.d)
        .slice(0, 10)
        .map((x) => x.id);
      const got = new Set((await lance.searchVector(ORG, [CORPUS], q, 10)).map((h) => h.chunkId));
      found += exact.filter((id) => got.has(id)).length;
    }
    console.log(`\n## ${size.toLocaleString("en")} chunks (loaded in ${loadS} s; vector index: ${ann ? "approximate IVF-HNSW-SQ" : "none, exact scan"})`);
    console.log(`| measure (${Q} queries) | p50 | p99 |\n|---|---|---|`);
    for (const [name, xs] of [["full retrieval step (embed + 2 searches + RRF + live filter + load + passages)", full], ["baseline: raw LanceDB vector search (limit 32)", rawVec], ["baseline: raw LanceDB BM25 search (limit 32)", rawText], ["part: query embedding", embedOnly], ["part: SQLite live filter + text of 64 candidates", sqlite]] as const) {
      console.log(`| ${name} | ${pct(xs, 50).toFixed(1)} ms | ${pct(xs, 99).toFixed(1)} ms |`);
    }
    console.log(`recall@10 of the driver's vector search vs exact: ${(found / (R * 10)).toFixed(3)} (${R} queries)`);
  }
  await lance.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
