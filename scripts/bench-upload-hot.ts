/**
 * The upload PUT measured back to back on warm processes, beside the same references as
 * bench-upload.ts (direct write, bare loopback PUT), each in blocks of N consecutive operations.
 * bench-upload.ts interleaves init, PUT, commit and the references one cycle at a time, as a
 * client uploading documents does; on this VM every hand-off to a process or thread that has
 * gone idle then costs wake-up time, which this variant leaves out: it tells how much of the
 * PUT is the route's own work. A fourth reference, the minimal durable PUT, is a child server
 * doing only what the issue requires of the route's write (temporary file, fsync, rename,
 * directory fsync): the floor of any route that stores uploads atomically and durably.
 *
 * Usage: bun scripts/bench-upload-hot.ts [N=200] [blocks=3]
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startKbqa } from "../test/helpers/server.ts";
import { percentile } from "./lib/load.ts";
import { benchCorpus, directWrite, startBarePut, startDurablePut } from "./lib/upload-refs.ts";

const SIZE = 1024 * 1024;
const N = Number(process.argv[2] ?? 200);
const BLOCKS = Number(process.argv[3] ?? 3);

const bare = await startBarePut(SIZE * 2);

const k = await startKbqa();
try {
  const { auth, corpusId } = await benchCorpus(k, "hot");
  // Upload URLs made beforehand (untimed); nothing is committed, so no ingestion runs meanwhile.
  const urls: string[] = [];
  for (let i = 0; i < N * BLOCKS; i++) {
    const r = await fetch(`${k.url}/v1/doc/init`, { method: "POST", headers: auth, body: JSON.stringify({ corpusId, filename: `f${i}.txt`, contentType: "text/plain" }) });
    urls.push(((await r.json()) as { uploadUrl: string }).uploadUrl);
  }
  const base = new Uint8Array(SIZE).map((_, i) => 97 + (i % 26));
  const dir = join(k.dataDir, "direct-baseline");
  mkdirSync(dir);
  const durableDir = join(k.dataDir, "durable-reference");
  mkdirSync(durableDir);
  const durable = await startDurablePut(SIZE * 2, durableDir);
  const p50 = (a: number[]) => percentile([...a].sort((x, y) => x - y), 50);
  const timed = async (op: (body: Uint8Array<ArrayBuffer>, i: number) => Promise<void> | void) => {
    const ms: number[] = [];
    for (let i = 0; i < N; i++) {
      const body = base.slice(); // fresh memory, distinct content, as in bench-upload.ts
      body.set(new TextEncoder().encode(`${i} ${crypto.randomUUID()} `));
      const t = performance.now();
      await op(body, i);
      ms.push(performance.now() - t);
    }
    return p50(ms);
  };
  let next = 0;
  console.log(`bench-upload-hot: blocks of ${N} consecutive operations on ${SIZE} bytes, p50 ms`);
  for (let b = 0; b < BLOCKS; b++) {
    const put = await timed(async (body) => {
      const r = await fetch(urls[next++]!, { method: "PUT", body, headers: { "content-type": "text/plain" } });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`PUT answered ${r.status}`);
    });
    const direct = await timed((body, i) => directWrite(dir, `b${b}-${i}`, body));
    const barePut = await timed(async (body) => {
      const r = await fetch(`http://127.0.0.1:${bare.port}/`, { method: "PUT", body, headers: { "content-type": "text/plain" } });
      await r.arrayBuffer();
    });
    const minimal = await timed(async (body) => {
      const r = await fetch(`http://127.0.0.1:${durable.port}/`, { method: "PUT", body, headers: { "content-type": "text/plain" } });
      await r.arrayBuffer();
    });
    console.log(
      `block ${b}: PUT ${put.toFixed(2)}  direct write ${direct.toFixed(2)}  bare PUT ${barePut.toFixed(2)}  minimal durable PUT ${minimal.toFixed(2)}` +
        `  PUT / direct ${(put / direct).toFixed(2)}x  minimal durable PUT / direct ${(minimal / direct).toFixed(2)}x`,
    );
  }
  durable.stop();
} finally {
  await k.stop();
  bare.stop();
}
