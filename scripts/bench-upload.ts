/**
 * Upload path benchmark: N init + PUT + commit cycles of a distinct 1 MiB file against the real
 * server (child process, default flags), sequential.
 *
 * References measured in the same run, on the same bytes, each cycle running the five steps in
 * a rotated order so none always follows another (2 cores, other work on the machine):
 * - direct write: a new file in the same data directory with the durability the route gives
 *   (open, one write, fsync of the file, fsync of the directory), synchronous calls. This is
 *   the baseline. It is not atomic: a crash mid-write leaves half a file under the name.
 * - O_DIRECT direct write: the same, written past the page cache as the route now writes a
 *   declared body, so the route can also be read against the fastest plain write of the bytes.
 * - atomic direct write: the same, plus what atomicity costs — write to a temporary name,
 *   fsync, rename, fsync of the directory. That second directory fsync is a second journal
 *   commit the plain direct write does not need (its file fsync already commits the new name).
 * - bare PUT: the same bytes PUT over loopback to a Bun.serve child that reads the body and
 *   discards it: the HTTP floor any upload pays before touching the disk.
 * - minimal durable PUT: the same bytes PUT to a Bun.serve child that stores them as the issue
 *   requires and does nothing else (temporary file, fsync, rename, directory fsync; no
 *   signature, grant or hash): the floor of any atomic, durable upload route on this machine.
 *
 * After each commit the script waits (untimed) until ingestion has finished with the document,
 * so that work never lands inside a timed step.
 *
 * Usage: bun scripts/bench-upload.ts [cycles=1000] [sizeBytes=1048576]
 *
 * Documents carry an invalid `chunk` strategy so the ingestion worker fails them at once
 * instead of converting and embedding 1 GiB of text on the same 2 cores during the run:
 * this measures the upload path, not ingestion (scripts/bench-ingest.ts does that).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa } from "../test/helpers/server.ts";
import { percentile } from "./lib/load.ts";
import { benchCorpus, directWrite, directWriteODirect, fsyncDir, startBarePut, startDurablePut, writeAll } from "./lib/upload-refs.ts";

const N = Number(process.argv[2] ?? 1000);
const SIZE = Number(process.argv[3] ?? 1024 * 1024);
const WARMUP = 20;

const bare = await startBarePut(SIZE * 2 + 1024);

const t: Record<string, number[]> = {};
const rec = (name: string, ms: number) => (t[name] ??= []).push(ms);
const statuses = new Map<string, number>();
const count = (s: string) => statuses.set(s, (statuses.get(s) ?? 0) + 1);

const k = await startKbqa();
const durableDir = join(k.dataDir, "durable-reference");
mkdirSync(durableDir, { recursive: true });
const durable = await startDurablePut(SIZE * 2 + 1024, durableDir);
try {
  const { auth, corpusId } = await benchCorpus(k, "bench");

  const base = new Uint8Array(SIZE);
  for (let i = 0; i < SIZE; i++) base[i] = 97 + (i % 26);
  if (SIZE > 1) base[SIZE - 1] = 10;
  const direct = join(k.dataDir, "direct-baseline");
  mkdirSync(direct, { recursive: true });
  const serverPhases = new Set<string>();

  /** Polls (untimed) until ingestion is done with the document, so it cannot overlap the next step. */
  const settle = async (id: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await fetch(`${k.url}/v1/doc/${id}/status`, { headers: { authorization: auth.authorization } });
      const s = ((await r.json()) as { status: string }).status;
      if (s === "READY" || s === "FAILED") return count(`ingested ${s}`);
      if (Date.now() > deadline) throw new Error(`document ${id} still ${s} after 30 s`);
      await Bun.sleep(1);
    }
  };

  const steps: Record<string, (i: number, body: Uint8Array<ArrayBuffer>, keep: boolean) => Promise<void>> = {
    async upload(i, body, keep) {
      const c0 = performance.now();
      const ir = await fetch(`${k.url}/v1/doc/init`, {
        method: "POST", headers: auth,
        body: JSON.stringify({ corpusId, filename: `f${i}.txt`, contentType: "text/plain", chunk: { strategy: "bench-skip-ingestion" } }),
      });
      const init = (await ir.json()) as { document: { id: string }; uploadUrl: string };
      const c1 = performance.now();
      const pr = await fetch(init.uploadUrl, { method: "PUT", body, headers: { "content-type": "text/plain" } });
      await pr.arrayBuffer();
      const c2 = performance.now();
      const cr = await fetch(`${k.url}/v1/doc/${init.document.id}/commit`, { method: "POST", headers: { authorization: auth.authorization } });
      await cr.arrayBuffer();
      const c3 = performance.now();
      count(`init ${ir.status}`), count(`put ${pr.status}`), count(`commit ${cr.status}`);
      await settle(init.document.id);
      if (!keep) return;
      rec("init", c1 - c0), rec("PUT", c2 - c1), rec("commit", c3 - c2), rec("cycle", c3 - c0);
      const st = pr.headers.get("server-timing") ?? "";
      for (const m of st.matchAll(/([\w-]+);dur=([\d.]+)/g)) serverPhases.add(m[1]!), rec(`PUT server ${m[1]}`, Number(m[2]));
      const total = /\btotal;dur=([\d.]+)/.exec(st);
      if (total) rec("PUT outside handler", c2 - c1 - Number(total[1]));
    },
    async direct(i, body, keep) {
      const d0 = performance.now();
      directWrite(direct, `d${i}`, body);
      if (keep) rec("direct write", performance.now() - d0);
    },
    async odirect(i, body, keep) {
      const o0 = performance.now();
      directWriteODirect(direct, `o${i}`, body);
      if (keep) rec("O_DIRECT direct write", performance.now() - o0);
    },
    async atomic(i, body, keep) {
      const a0 = performance.now();
      const name = join(direct, `a${i}`);
      const fd = openSync(`${name}.tmp`, "w", 0o600);
      writeAll(fd, body);
      fsyncSync(fd);
      closeSync(fd);
      renameSync(`${name}.tmp`, name);
      fsyncDir(direct);
      if (keep) rec("atomic direct write", performance.now() - a0);
    },
    async bare(_i, body, keep) {
      const b0 = performance.now();
      const br = await fetch(`http://127.0.0.1:${bare.port}/`, { method: "PUT", body, headers: { "content-type": "text/plain" } });
      await br.arrayBuffer();
      count(`bare ${br.status}`);
      if (keep) rec("bare PUT", performance.now() - b0);
    },
    async minimal(_i, body, keep) {
      const m0 = performance.now();
      const mr = await fetch(`http://127.0.0.1:${durable.port}/`, { method: "PUT", body, headers: { "content-type": "text/plain" } });
      await mr.arrayBuffer();
      count(`minimal ${mr.status}`);
      if (keep) rec("minimal durable PUT", performance.now() - m0);
    },
  };
  const order = Object.keys(steps);

  const run = async (i: number, keep: boolean) => {
    for (let j = 0; j < order.length; j++) {
      const body = base.slice(); // fresh memory for every step, distinct content for every upload
      body.set(new TextEncoder().encode(`${i} ${j} ${crypto.randomUUID()} `));
      await steps[order[(((i + j) % order.length) + order.length) % order.length]!]!(i, body, keep);
    }
  };

  for (let i = 0; i < WARMUP; i++) await run(-1 - i, false);
  statuses.clear();
  const start = performance.now();
  for (let i = 0; i < N; i++) await run(i, true);
  const seconds = (performance.now() - start) / 1000;
  rmSync(direct, { recursive: true, force: true });
  rmSync(durableDir, { recursive: true, force: true });

  const stat = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, p50: percentile(s, 50), p99: percentile(s, 99) };
  };
  const f = (n: number) => n.toFixed(2).padStart(8);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / 1000;
  console.log(`bench-upload: ${N} cycles of ${SIZE} bytes, sequential, ${seconds.toFixed(1)} s wall, load average ${(await Bun.file("/proc/loadavg").text().catch(() => "?")).split(" ").slice(0, 3).join(" ")}`);
  console.log(`throughput: ${(N / sum(t.cycle!)).toFixed(1)} init+PUT+commit cycles/s, ${((N * SIZE) / 1048576 / sum(t.PUT!)).toFixed(1)} MiB/s through PUT (timed steps only; references and ingestion waits excluded)`);
  console.log("step                     mean ms   p50 ms   p99 ms");
  const rows = ["init", "PUT", "commit", "cycle", ...[...serverPhases].map((p) => `PUT server ${p}`), "PUT outside handler", "direct write", "O_DIRECT direct write", "atomic direct write", "bare PUT", "minimal durable PUT"];
  for (const name of rows) {
    const s = stat(t[name]!);
    console.log(`${name.padEnd(22)} ${f(s.mean)} ${f(s.p50)} ${f(s.p99)}`);
  }
  const ratio = (a: string, b: string) => {
    const x = stat(t[a]!), y = stat(t[b]!);
    return `p50 ${(x.p50 / y.p50).toFixed(2)}x, mean ${(x.mean / y.mean).toFixed(2)}x, p99 ${(x.p99 / y.p99).toFixed(2)}x`;
  };
  console.log(`PUT / direct write:          ${ratio("PUT", "direct write")}   (issue target <= 1.5x)`);
  console.log(`PUT / atomic direct write:   ${ratio("PUT", "atomic direct write")}`);
  console.log(`PUT / O_DIRECT direct write: ${ratio("PUT", "O_DIRECT direct write")}   (the same bytes written past the page cache, as the route does)`);
  console.log(`direct / O_DIRECT direct:    ${ratio("direct write", "O_DIRECT direct write")}   (what the page cache costs a 1 MiB durable write here)`);
  console.log(`server total / direct write: ${ratio("PUT server total", "direct write")}`);
  console.log(`bare PUT / direct write:     ${ratio("bare PUT", "direct write")}   (HTTP floor, no disk)`);
  console.log(`minimal durable PUT / direct write: ${ratio("minimal durable PUT", "direct write")}   (floor of an atomic durable upload)`);
  console.log(`PUT / minimal durable PUT:   ${ratio("PUT", "minimal durable PUT")}   (what the route adds: signature, grant, SHA-256, key directory)`);
  console.log(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
} finally {
  await k.stop();
  bare.stop();
  durable.stop();
}
