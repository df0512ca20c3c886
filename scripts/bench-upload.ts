/**
 * Upload path benchmark: N init + PUT + commit cycles of a 1 MiB file against the real server
 * (child process, default flags), sequential, each file distinct (no duplicate 409s).
 *
 * Two references are measured in the same run, interleaved with the cycles so all see the same
 * disk and CPU conditions:
 * - direct write: the same bytes to a new file in the same data directory, with the durability
 *   the storage route gives (open, one write, fsync of the file, fsync of its directory so the
 *   new name survives a power cut; a PUT answers 200 only once both hold). Synchronous calls,
 *   the cheapest way to get there. "file fsync" is the same write without the directory fsync.
 * - bare PUT: the same bytes PUT over loopback to a bare Bun.serve child that reads the body
 *   and discards it: the floor any HTTP upload pays before touching the disk.
 *
 * Usage: bun scripts/bench-upload.ts [cycles=1000] [sizeBytes=1048576]
 *
 * Documents carry an invalid `chunk` strategy so the ingestion worker fails them at once
 * instead of converting and embedding 1 GiB of text on the same 2 cores during the run:
 * this measures the upload path, not ingestion (scripts/bench-ingest.ts does that).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { startKbqa } from "../test/helpers/server.ts";
import { percentile } from "./lib/load.ts";

const N = Number(process.argv[2] ?? 1000);
const SIZE = Number(process.argv[3] ?? 1024 * 1024);

const BARE = `const s = Bun.serve({ port: 0, hostname: "127.0.0.1", maxRequestBodySize: ${SIZE * 2 + 1024},
  async fetch(r) { const n = (await r.bytes()).byteLength; return new Response(null, { headers: { "x-n": String(n) } }); } });
console.log(s.port);`;
const bare = Bun.spawn(["bun", "-e", BARE], { stdout: "pipe", stderr: "inherit" });
const barePort = Number(new TextDecoder().decode((await bare.stdout.getReader().read()).value).trim());

const k = await startKbqa();
try {
  const org = await k.org("bench");
  const jwt = await org.jwt({}, { expSeconds: 3600 });
  const auth = { authorization: `Bearer ${jwt}`, "content-type": "application/json" };
  const corpusId = ((await (await fetch(`${k.url}/v1/corpus/`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench" }) })).json()) as { id: string }).id;

  const base = new Uint8Array(SIZE);
  for (let i = 0; i < SIZE; i++) base[i] = 97 + (i % 26);
  if (SIZE > 1) base[SIZE - 1] = 10;
  const direct = join(k.dataDir, "direct-baseline");
  mkdirSync(direct, { recursive: true });

  const PHASES = ["claim", "recv", "write", "md5", "fsync", "rename", "dirsync", "complete", "total"] as const;
  const t: Record<string, number[]> = {};
  const rec = (name: string, ms: number) => (t[name] ??= []).push(ms);
  const statuses = new Map<string, number>();
  const count = (k: string) => statuses.set(k, (statuses.get(k) ?? 0) + 1);

  const cycle = async (i: number, keep: boolean) => {
    const body = base.slice();
    body.set(new TextEncoder().encode(`${i} ${crypto.randomUUID()} `));
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
    const st = pr.headers.get("server-timing") ?? "";
    const cr = await fetch(`${k.url}/v1/doc/${init.document.id}/commit`, { method: "POST", headers: { authorization: auth.authorization } });
    await cr.arrayBuffer();
    const c3 = performance.now();
    count(`init ${ir.status}`), count(`put ${pr.status}`), count(`commit ${cr.status}`);

    const d0 = performance.now();
    const fd = openSync(join(direct, `f${i}`), "w", 0o600);
    for (let off = 0; off < body.byteLength; ) off += writeSync(fd, body, off);
    fsyncSync(fd);
    closeSync(fd);
    const d1 = performance.now();
    const dfd = openSync(direct, "r");
    fsyncSync(dfd);
    closeSync(dfd);
    const d2 = performance.now();

    const b0 = performance.now();
    const br = await fetch(`http://127.0.0.1:${barePort}/`, { method: "PUT", body, headers: { "content-type": "text/plain" } });
    await br.arrayBuffer();
    const b1 = performance.now();
    count(`bare ${br.status}`);
    if (!keep) return;
    rec("init", c1 - c0), rec("PUT", c2 - c1), rec("commit", c3 - c2), rec("cycle", c3 - c0);
    for (const p of PHASES) rec(`PUT server ${p}`, Number(new RegExp(`\\b${p};dur=([\\d.]+)`).exec(st)?.[1] ?? NaN));
    rec("direct write", d2 - d0), rec("  file fsync", d1 - d0), rec("bare PUT", b1 - b0);
  };

  for (let i = 0; i < 20; i++) await cycle(-1 - i, false); // warm-up, not counted
  statuses.clear();
  const start = performance.now();
  for (let i = 0; i < N; i++) await cycle(i, true);
  const seconds = (performance.now() - start) / 1000;
  rmSync(direct, { recursive: true, force: true });

  const stat = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, p50: percentile(s, 50), p99: percentile(s, 99) };
  };
  const f = (n: number) => n.toFixed(2).padStart(8);
  console.log(`bench-upload: ${N} cycles of ${SIZE} bytes, sequential, ${seconds.toFixed(1)} s, load average ${(await Bun.file("/proc/loadavg").text().catch(() => "?")).split(" ").slice(0, 3).join(" ")}`);
  console.log(`throughput: ${(N / seconds).toFixed(1)} cycles/s (init+PUT+commit + both references), ${((N * SIZE) / 1048576 / seconds).toFixed(1)} MiB/s uploaded`);
  console.log("step                 mean ms   p50 ms   p99 ms");
  for (const [name, xs] of Object.entries(t)) {
    const s = stat(xs);
    console.log(`${name.padEnd(18)} ${f(s.mean)} ${f(s.p50)} ${f(s.p99)}`);
  }
  const ratio = (a: string, b: string) => {
    const x = stat(t[a]!), y = stat(t[b]!);
    return `mean ${(x.mean / y.mean).toFixed(2)}x, p50 ${(x.p50 / y.p50).toFixed(2)}x, p99 ${(x.p99 / y.p99).toFixed(2)}x`;
  };
  console.log(`PUT / direct write: ${ratio("PUT", "direct write")} (target <= 1.5x)`);
  console.log(`PUT server total / direct write: ${ratio("PUT server total", "direct write")}`);
  console.log(`bare PUT / direct write: ${ratio("bare PUT", "direct write")} (HTTP floor, no disk)`);
  console.log(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
} finally {
  await k.stop();
  bare.kill();
}
