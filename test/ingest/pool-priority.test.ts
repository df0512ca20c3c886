import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { WORKER_NICE, WorkerPool } from "../../src/ingest/pool.ts";

// A stand-in worker that answers each request with its own pid.
const dir = mkdtempSync(join(tmpdir(), "kbqa-pool-priority-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fake = join(dir, "fake-worker.ts");
writeFileSync(fake, `
process.on("message", (msg) => {
  for (const m of msg.type === "batch" ? msg.requests : [msg]) process.send({ type: "done", id: m.id, result: { pid: process.pid } });
});
process.send({ type: "ready" });
`);

test("workers run at a lower scheduling priority than the server, which keeps its own", async () => {
  const pool = new WorkerPool({ size: 2, timeoutMs: 10_000, memoryBytes: 2 ** 30, command: [process.execPath, fake] });
  const own = getPriority();
  try {
    const parse = { type: "parse" as const, contentType: "text/plain", chunk: null, bytes: new Uint8Array(1) };
    // Two at once, so both workers are spawned.
    const answers = (await Promise.all([pool.run(parse), pool.run(parse)])) as { pid: number }[];
    const pids = [...new Set(answers.map((a) => a.pid))];
    expect(pids.length).toBe(2);
    expect(pids.map((pid) => getPriority(pid))).toEqual(pids.map(() => Math.min(own + WORKER_NICE, 19)));
    expect(getPriority()).toBe(own);
  } finally {
    await pool.close();
  }
});
