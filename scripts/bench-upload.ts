/**
 * Upload path benchmark: N init + PUT + commit cycles of a 1 MiB file against the real server
 * (child process, default flags), sequential, each file distinct (no duplicate 409s). In the
 * same run, the baseline: writing the same 1 MiB to a file in the same data directory directly
 * (Bun.write + fsync), once per cycle, interleaved so both see the same disk conditions.
 *
 * Usage: bun scripts/bench-upload.ts [cycles=1000] [sizeBytes=1048576]
 *
 * Documents carry an invalid `chunk` strategy so the ingestion worker fails them at once
 * instead of converting and embedding 1 GiB of text on the same 2 cores during the run:
 * this measures the upload path, not ingestion (scripts/bench-ingest.ts does that).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa } from "../test/helpers/server.ts";
import { percentile } from "./lib/load.ts";

const N = Number(process.argv[2] ?? 1000);
const SIZE = Number(process.argv[3] ?? 1024 * 1024);

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

  const t = {
    init: [] as number[], put: [] as number[], commit: [] as number[], cycle: [] as number[], direct: [] as number[],
    /** From the PUT's Server-Timing: time inside the storage handler (receive + write + fsync + rename + claim), and its fsync. */
    putServer: [] as number[], putFsync: [] as number[],
  };
  const statuses = new Map<string, number>();
  const count = (k: string) => statuses.set(k, (statuses.get(k) ?? 0) + 1);

  const cycle = async (i: number) => {
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
    const dur = (name: string) => Number(new RegExp(`${name};dur=([\\d.]+)`).exec(st)?.[1] ?? NaN);
    const cr = await fetch(`${k.url}/v1/doc/${init.document.id}/commit`, { method: "POST", headers: { authorization: auth.authorization } });
    await cr.arrayBuffer();
    const c3 = performance.now();
    count(`init ${ir.status}`), count(`put ${pr.status}`), count(`commit ${cr.status}`);
    // Baseline: the same bytes straight to disk, durably.
    const d0 = performance.now();
    const p = join(direct, `f${i}`);
    await Bun.write(p, body);
    const fd = openSync(p, "r");
    fsyncSync(fd);
    closeSync(fd);
    const d1 = performance.now();
    return { init: c1 - c0, put: c2 - c1, commit: c3 - c2, cycle: c3 - c0, direct: d1 - d0, putServer: dur("total"), putFsync: dur("fsync") };
  };

  for (let i = 0; i < 20; i++) await cycle(-1 - i); // warm-up, not counted
  statuses.clear();
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    const r = await cycle(i);
    for (const key of Object.keys(t) as (keyof typeof t)[]) t[key].push(r[key]);
  }
  const seconds = (performance.now() - start) / 1000;
  rmSync(direct, { recursive: true, force: true });

  const stat = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, p50: percentile(s, 50), p99: percentile(s, 99) };
  };
  const f = (n: number) => n.toFixed(2).padStart(8);
  console.log(`bench-upload: ${N} cycles of ${SIZE} bytes, sequential, ${seconds.toFixed(1)} s`);
  console.log(`throughput: ${(N / seconds).toFixed(1)} cycles/s (init+PUT+commit+baseline write), ${((N * SIZE) / 1048576 / seconds).toFixed(1)} MiB/s uploaded`);
  console.log("step           mean ms   p50 ms   p99 ms");
  for (const key of Object.keys(t) as (keyof typeof t)[]) {
    const s = stat(t[key]);
    const label = { direct: "direct write", putServer: "PUT (server)", putFsync: "PUT fsync" }[key as string] ?? key;
    console.log(`${label.padEnd(12)} ${f(s.mean)} ${f(s.p50)} ${f(s.p99)}`);
  }
  const put = stat(t.put);
  const dw = stat(t.direct);
  console.log(`PUT / direct write: mean ${(put.mean / dw.mean).toFixed(2)}x, p50 ${(put.p50 / dw.p50).toFixed(2)}x, p99 ${(put.p99 / dw.p99).toFixed(2)}x (target <= 1.5x)`);
  const ps = stat(t.putServer);
  console.log(`PUT server-side / direct write: mean ${(ps.mean / dw.mean).toFixed(2)}x, p50 ${(ps.p50 / dw.p50).toFixed(2)}x`);
  console.log(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
} finally {
  await k.stop();
}
