import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";

// Idle ingestion workers exit after --worker-idle-ms and come back with the next job.
const IDLE_MS = 1000;
let k: Kbqa;
let org: Org;
let corpusId: string;

beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "2", "--worker-idle-ms", String(IDLE_MS)] });
  org = await k.org();
  const c = await org.api("POST", "/v1/corpus/", { name: "idle" });
  expect(c.status).toBe(200);
  corpusId = c.body.id;
});
afterAll(async () => {
  await k?.stop();
});

/** Live `kbqa worker` children of the server, from /proc. */
function workerPids(): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
      if (ppid !== k.proc.pid) continue;
      const argv = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (argv.includes("worker")) out.push(Number(d));
    } catch {
      // exited while being read
    }
  }
  return out.sort((a, b) => a - b);
}

/** Ingests one document while watching which workers appear; resolves with their pids. */
async function ingestWatching(name: string): Promise<number[]> {
  const seen = new Set<number>();
  let done = false;
  const watch = (async () => {
    while (!done) {
      for (const p of workerPids()) seen.add(p);
      await Bun.sleep(20);
    }
  })();
  try {
    await ingestDocument(k, org, corpusId, name, `# ${name}\n\nThe warehouse in ${name} stores forty crates of rope.\n`);
  } finally {
    // The worker outlives the document by IDLE_MS: one more look catches a fast ingestion.
    for (const p of workerPids()) seen.add(p);
    done = true;
    await watch;
  }
  return [...seen];
}

test("workers exit after the idle period, and a later upload respawns one and reaches READY", async () => {
  const first = await ingestWatching("first.md");
  expect(first.length).toBeGreaterThanOrEqual(1);
  await waitFor(() => workerPids().length === 0, "idle workers gone", 20_000);
  // Exited and reaped by the server, not left as zombies.
  await waitFor(() => first.every((p) => !existsSync(`/proc/${p}`)), "retired workers reaped", 10_000);

  const second = await ingestWatching("second.md");
  expect(second.length).toBeGreaterThanOrEqual(1);
  expect(second.filter((p) => first.includes(p))).toEqual([]);
  await waitFor(() => workerPids().length === 0, "idle workers gone again", 20_000);
  // The server itself is fine and still answers.
  expect((await k.request("GET", "/pub/ping")).status).toBe(200);
}, 90_000);
