// Native memory of LanceDB alone, outside the server, in the loop the README's soak section
// describes: a chunk table with the service's schema (src/store/lance-rows.ts, 384 dims, FTS
// index on text, bitmap/B-tree indexes as the driver builds them), rounds of add (one document of
// 10 chunks) / delete (the document added 20 rounds before) / BM25 search / vector search, an
// optimize every third round and, after each, the table reopened on a fresh connection as
// src/store/lance.ts does. RSS and anonymous memory (/proc/self/status) are sampled every
// --every rounds, after a full GC, so JavaScript garbage holding native handles is not counted.
//
// Compared: LanceDB's default (connect() without a Session: each connection gets its own, with
// the default caches of 6 GB index / 1 GB metadata) against one shared Session with small caps
// passed to every connect. Each configuration runs in its own process, one after another,
// alternating, so all see the same machine load.
//
//   bun scripts/probe-lance-memory.ts [--rounds 900] [--every 50] [--repeat 1]
//                                     [--configs default,16:8,64:32,256:128]   (index:metadata MiB)
//   bun scripts/probe-lance-memory.ts --child 16:8 --rounds 900 --every 50   (one run, JSON lines)
//
// The runs inherit the environment, so `MALLOC_ARENA_MAX=2 bun scripts/probe-lance-memory.ts
// --configs default` measures glibc's allocator limited to two arenas (results: README, soak).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as lancedb from "@lancedb/lancedb";
import { newId, orderedId } from "../src/store/ids.ts";
import { chunkSchema, toArrowTable } from "../src/store/lance-rows.ts";
import type { VectorRecord } from "../src/store/vector.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "900" },
    every: { type: "string", default: "50" },
    repeat: { type: "string", default: "1" },
    configs: { type: "string", default: "default,16:8,64:32,256:128" },
    child: { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const EVERY = Number(values.every);
const DIMS = 384;
const MiB = 1024 * 1024;

type Sample = { round: number; rssMiB: number; anonMiB: number; cacheMiB?: number; cacheItems?: number; ms: number };

const statusKb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? NaN);

async function child(config: string) {
  const session = config === "default"
    ? undefined
    : (() => {
      const [idx, meta] = config.split(":").map(Number);
      return new lancedb.Session(BigInt(idx! * MiB), BigInt(meta! * MiB));
    })();
  // In the options: LanceDB 0.39's connect(uri, options, session) drops its third argument
  // (dist/index.js passes only the options to the native side), so the session would be ignored.
  const connect = () => lancedb.connect(dir, session ? { session } : {});
  const dir = mkdtempSync(join(tmpdir(), "kbqa-probe-lance-mem-"));
  try {
    let conn = await connect();
    let table = await conn.createEmptyTable("chunks__probe", chunkSchema(DIMS));
    const org = newId(), corpus = newId();
    const words = Array.from({ length: 2000 }, (_, i) => "w" + i.toString(36));
    const docs: string[] = [];
    const doc = (): VectorRecord[] => {
      const documentId = newId();
      docs.push(documentId);
      return Array.from({ length: 10 }, () => ({
        chunkId: orderedId(), orgId: org, corpusId: corpus, documentId, generation: 1,
        text: Array.from({ length: 100 }, () => words[Math.floor(Math.random() * words.length)]).join(" "),
        vector: Float32Array.from({ length: DIMS }, () => Math.random() * 2 - 1),
      }));
    };
    // Twenty documents to start with, indexed as the driver indexes a table's first rows.
    for (let i = 0; i < 20; i++) await table.add(toArrowTable(doc(), DIMS, "chunks__probe"));
    await table.createIndex("text", { config: lancedb.Index.fts(), replace: true });
    await table.createIndex("orgId", { config: lancedb.Index.bitmap(), replace: true });
    await table.createIndex("corpusId", { config: lancedb.Index.bitmap(), replace: true });
    await table.createIndex("documentId", { config: lancedb.Index.btree(), replace: true });
    await table.createIndex("chunkId", { config: lancedb.Index.btree(), replace: true });
    const where = `orgId = '${org}' AND corpusId IN ('${corpus}')`;
    const started = performance.now();
    const sample = (round: number) => {
      Bun.gc(true);
      const s: Sample = {
        round, rssMiB: statusKb("VmRSS") / 1024, anonMiB: statusKb("RssAnon") / 1024, ms: Math.round(performance.now() - started),
      };
      if (session) {
        s.cacheMiB = Number(session.sizeBytes()) / MiB;
        s.cacheItems = session.approxNumItems();
      }
      console.log(JSON.stringify(s));
    };
    sample(0);
    for (let round = 1; round <= ROUNDS; round++) {
      await table.add(toArrowTable(doc(), DIMS, "chunks__probe"));
      const gone = docs.shift()!;
      await table.delete(`orgId = '${org}' AND documentId = '${gone}'`);
      const q = Array.from({ length: 3 }, () => words[Math.floor(Math.random() * words.length)]).join(" ");
      await table.query().fullTextSearch(q, { columns: ["text"] }).where(where).select(["chunkId", "_score"]).limit(10).toArray();
      const v = Array.from({ length: DIMS }, () => Math.random() * 2 - 1);
      await table.vectorSearch(v).distanceType("cosine").where(where).select(["chunkId", "_distance"]).limit(10).toArray();
      if (round % 3 === 0) {
        await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
        const fresh = await connect();
        const reopened = await fresh.openTable("chunks__probe");
        table.close();
        conn.close();
        conn = fresh;
        table = reopened;
      }
      if (round % EVERY === 0) sample(round);
    }
    table.close();
    conn.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function parent() {
  const configs = values.configs!.split(",");
  const runs: { config: string; samples: Sample[] }[] = [];
  for (let r = 0; r < Number(values.repeat); r++) {
    for (const config of configs) {
      const p = Bun.spawn(["bun", import.meta.path, "--child", config, "--rounds", String(ROUNDS), "--every", String(EVERY)], {
        stdout: "pipe", stderr: "inherit", env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "error" },
      });
      const out = await new Response(p.stdout).text();
      if ((await p.exited) !== 0) throw new Error(`run ${config} failed`);
      const samples = out.trim().split("\n").map((l) => JSON.parse(l) as Sample);
      runs.push({ config, samples });
      const last = samples.at(-1)!, first = samples[0]!;
      console.error(`${config}: anon ${first.anonMiB.toFixed(1)} → ${last.anonMiB.toFixed(1)} MiB, rss ${first.rssMiB.toFixed(1)} → ${last.rssMiB.toFixed(1)} MiB, ${(last.ms / 1000).toFixed(0)} s`);
    }
  }
  // Growth of anonymous memory since round 0, per run, at each sampled round.
  const rounds = runs[0]!.samples.map((s) => s.round);
  const label = (run: { config: string }, i: number) => `${run.config === "default" ? "default" : run.config + " MiB"}${Number(values.repeat) > 1 ? ` #${Math.floor(i / configs.length) + 1}` : ""}`;
  console.log("\nRssAnon growth since round 0 (MiB); last row: RSS growth; cache = the session's own count at the end");
  console.log(["round", ...runs.map(label)].join(" | "));
  for (const [j, round] of rounds.entries()) {
    console.log([round, ...runs.map((r) => (r.samples[j]!.anonMiB - r.samples[0]!.anonMiB).toFixed(1))].join(" | "));
  }
  console.log(["rss", ...runs.map((r) => (r.samples.at(-1)!.rssMiB - r.samples[0]!.rssMiB).toFixed(1))].join(" | "));
  console.log(["cache", ...runs.map((r) => r.samples.at(-1)!.cacheMiB === undefined ? "-" : `${r.samples.at(-1)!.cacheMiB!.toFixed(1)} MiB/${r.samples.at(-1)!.cacheItems}`)].join(" | "));
}

if (values.child) await child(values.child);
else await parent();
