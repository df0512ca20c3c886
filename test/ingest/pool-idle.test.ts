import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkerPool } from "../../src/ingest/pool.ts";
import { waitFor } from "../helpers/server.ts";

// A stand-in worker that logs every request id it receives to a file of its own, so the test can
// tell whether any request was delivered twice or to a worker that then went away.
const dir = mkdtempSync(join(tmpdir(), "kbqa-pool-idle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fake = join(dir, "fake-worker.ts");
writeFileSync(fake, `
import { appendFileSync } from "node:fs";
const log = process.argv[2] + "/got-" + process.pid;
// Requests are answered in the order received, like the real worker.
let chain = Promise.resolve();
process.on("message", (msg) => {
  for (const m of msg.type === "batch" ? msg.requests : [msg]) {
    appendFileSync(log, m.id + "\\n");
    chain = chain.then(() => new Promise((r) => setTimeout(r, Number(m.contentType)))).then(() => process.send({ type: "done", id: m.id, result: { pid: process.pid } }));
  }
});
process.send({ type: "ready" });
`);

let logs = 0;
let logDir = "";
/** A pool whose workers log into a fresh folder (read by received()). */
const pool = (idleMs: number) => {
  logDir = join(dir, `logs-${++logs}`);
  mkdirSync(logDir);
  return new WorkerPool({ size: 2, timeoutMs: 10_000, memoryBytes: 2 ** 30, idleMs, command: [process.execPath, fake, logDir] });
};
const parse = (ms: number) => ({ type: "parse" as const, contentType: String(ms), chunk: null, bytes: new Uint8Array(1) });
const received = () => readdirSync(logDir).flatMap((f) => readFileSync(join(logDir, f), "utf8").trim().split("\n").map(Number));

test("an idle worker exits after idleMs; the next request gets a fresh one", async () => {
  const p = pool(100);
  try {
    const a = (await p.run(parse(5))) as { pid: number };
    expect(p.pids()).toEqual([a.pid]);
    await waitFor(() => p.pids().length === 0 && !existsSync(`/proc/${a.pid}/cmdline`), "worker retired", 10_000);
    expect(p.retired()).toBe(1);
    const b = (await p.run(parse(5))) as { pid: number };
    expect(b.pid).not.toBe(a.pid);
    expect(p.pids()).toEqual([b.pid]);
  } finally {
    await p.close();
  }
});

test("requests arriving around the idle deadline are each delivered exactly once and all answered", async () => {
  const idleMs = 40;
  const p = pool(idleMs);
  try {
    // Gaps straddle the idle period so some requests land just before, at and after retirement.
    const results: Promise<unknown>[] = [];
    for (let i = 0; i < 80; i++) {
      results.push(p.run(parse(i % 3), { small: i % 2 === 0 }));
      if (i % 4 === 3) await Bun.sleep(idleMs - 12 + ((i * 7) % 25));
    }
    const settled = await Promise.allSettled(results);
    expect(settled.filter((s) => s.status === "rejected")).toEqual([]);
    expect(p.retired()).toBeGreaterThan(0);
    const ids = received().sort((x, y) => x - y);
    expect(settled.length).toBe(80);
    expect(ids).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
  } finally {
    await p.close();
  }
});

test("idleMs 0 keeps workers until the pool closes", async () => {
  const p = pool(0);
  try {
    const a = (await p.run(parse(1))) as { pid: number };
    const b = (await p.run(parse(1))) as { pid: number };
    expect(b.pid).toBe(a.pid);
    expect(p.retired()).toBe(0);
  } finally {
    await p.close();
  }
});
