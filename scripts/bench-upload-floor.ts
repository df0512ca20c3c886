/**
 * Floors of a durable 1 MiB upload over loopback HTTP: bare Bun.serve children that store the body
 * in several ways (see lib/upload-floor-server.ts), each against the direct write of the same bytes
 * measured in the same block. It answers whether some way of writing an upload, before any of the
 * route's own work, comes within 1.5× of the direct write.
 *
 * Usage: bun scripts/bench-upload-floor.ts [N=120] [blocks=4]
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile } from "./lib/load.ts";
import { directWrite } from "./lib/upload-refs.ts";

const SIZE = 1024 * 1024;
const N = Number(process.argv[2] ?? 120);
const BLOCKS = Number(process.argv[3] ?? 4);
const MODES = ["bare", "whole", "bunwrite", "dsync", "writeback", "raw", "odirect"] as const;
// The same temporary directory (and disk) the other upload benchmarks' data directories use.
const root = mkdtempSync(join(tmpdir(), "kbqa-bench-upload-floor-"));

const servers = new Map<string, { port: number; proc: Bun.Subprocess }>();
try {
  mkdirSync(join(root, "direct"));
  for (const mode of MODES) {
    mkdirSync(join(root, mode));
    const proc = Bun.spawn(["bun", join(import.meta.dir, "lib/upload-floor-server.ts")], {
      env: { ...process.env, MODE: mode, DIR: join(root, mode) },
      stdout: "pipe",
      stderr: "inherit",
    });
    const port = Number(new TextDecoder().decode((await proc.stdout.getReader().read()).value).trim());
    if (!port) throw new Error(`the ${mode} server did not start`);
    servers.set(mode, { port, proc });
  }
  const base = new Uint8Array(SIZE).map((_, i) => 97 + (i % 26));
  const timed = async (op: (body: Uint8Array<ArrayBuffer>) => Promise<void> | void) => {
    const ms: number[] = [];
    for (let i = 0; i < N; i++) {
      const body = base.slice();
      body.set(new TextEncoder().encode(`${i} ${crypto.randomUUID()} `));
      const t = performance.now();
      await op(body);
      ms.push(performance.now() - t);
    }
    return percentile(ms.sort((a, b) => a - b), 50);
  };
  let k = 0;
  console.log(`bench-upload-floor: blocks of ${N} operations on ${SIZE} bytes, p50 ms (× the direct write of the same block)`);
  for (let b = 0; b < BLOCKS; b++) {
    const direct = await timed((body) => directWrite(join(root, "direct"), String(k++), body));
    const row = [`direct write ${direct.toFixed(2)}`];
    for (const mode of MODES) {
      const { port } = servers.get(mode)!;
      const ms = await timed(async (body) => {
        const r = await fetch(`http://127.0.0.1:${port}/`, { method: "PUT", body });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`${mode} answered ${r.status}`);
      });
      row.push(`${mode} ${ms.toFixed(2)} (${(ms / direct).toFixed(2)}×)`);
    }
    console.log(`block ${b}: ${row.join("  ")}`);
  }
} finally {
  for (const { proc } of servers.values()) proc.kill();
  rmSync(root, { recursive: true, force: true });
}
