import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkerAborted, WorkerPool } from "../../src/ingest/pool.ts";
import { IngestFailure } from "../../src/ingest/pipeline.ts";

// A stand-in worker speaking the pool's protocol (requests alone or in batches): "hang" never answers, anything else answers
// with the order in which this process received it and how many it had received by then.
const dir = mkdtempSync(join(tmpdir(), "kbqa-pool-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fake = join(dir, "fake-worker.ts");
writeFileSync(fake, `
let seen = 0;
let messages = 0;
process.on("message", (msg) => {
  messages++;
  for (const m of msg.type === "batch" ? msg.requests : [msg]) {
    const n = ++seen;
    if (m.contentType === "hang") continue;
    setTimeout(() => process.send({ type: "done", id: m.id, result: { n, seen, messages, pid: process.pid } }), 20);
  }
});
process.send({ type: "ready" });
`);

const pool = (timeoutMs: number) => new WorkerPool({ size: 1, timeoutMs, memoryBytes: 2 ** 30, command: [process.execPath, fake] });
const parse = (contentType: string) => ({ type: "parse" as const, contentType, chunk: null, bytes: new Uint8Array(1) });

test("small requests are pipelined into one busy worker, in order", async () => {
  const p = pool(10_000);
  try {
    const got = (await Promise.all([1, 2, 3].map(() => p.run(parse("text/plain"), { small: true })))) as { n: number; seen: number; pid: number }[];
    // All three were in the worker before it answered the first.
    expect(got.map((g) => [g.n, g.seen])).toEqual([[1, 3], [2, 3], [3, 3]]);
    expect(new Set(got.map((g) => g.pid)).size).toBe(1);
  } finally {
    await p.close();
  }
});

test("small requests issued in one turn reach the worker as one message; a later one as its own", async () => {
  const p = pool(10_000);
  try {
    const together = (await Promise.all([1, 2, 3].map(() => p.run(parse("text/plain"), { small: true })))) as { n: number; messages: number }[];
    expect(together.map((g) => [g.n, g.messages])).toEqual([[1, 1], [2, 1], [3, 1]]);
    const later = (await p.run(parse("text/plain"), { small: true })) as { n: number; messages: number };
    expect([later.n, later.messages]).toEqual([4, 2]);
  } finally {
    await p.close();
  }
});

test("a request that is not small waits for an idle worker", async () => {
  const p = pool(10_000);
  try {
    const first = p.run(parse("text/plain"), { small: true });
    const big = p.run(parse("application/pdf"));
    const after = p.run(parse("text/plain"), { small: true });
    const got = (await Promise.all([first, big, after])) as { n: number; seen: number }[];
    // The big one was sent only once the worker was idle, and nothing queued behind it.
    expect(got.map((g) => [g.n, g.seen])).toEqual([[1, 1], [2, 2], [3, 3]]);
  } finally {
    await p.close();
  }
});

test("a request queued behind one that hits the time limit fails as WorkerAborted (never started); the pool recovers", async () => {
  const p = pool(300);
  try {
    const hang = p.run(parse("hang"), { small: true });
    const behind = p.run(parse("text/plain"), { small: true });
    const [h, b] = await Promise.allSettled([hang, behind]);
    expect(h.status === "rejected" && h.reason instanceof IngestFailure && h.reason.message).toBe("ingestion exceeded the 0.3 s limit: raise --ingest-timeout-ms (now 300) or split the document");
    expect(b.status === "rejected" && b.reason instanceof WorkerAborted).toBe(true);
    expect(((await p.run(parse("text/plain"), { small: true })) as { n: number }).n).toBe(1); // a fresh worker
  } finally {
    await p.close();
  }
});
