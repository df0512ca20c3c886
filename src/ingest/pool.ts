/**
 * A pool of reusable worker processes (worker.ts) with a wall-clock and a memory limit per
 * request. Bun ignores worker-thread resourceLimits, so the bound is a process we can kill:
 * its RSS is read from /proc/<pid>/status every MEM_POLL_MS and it is SIGKILLed when over.
 * A killed or crashed worker is dropped; the next request spawns a fresh one.
 * Requests wait in two priority lanes: parsing ("high") always goes before previews ("low").
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Subprocess } from "bun";
import { IngestFailure } from "./pipeline.ts";
import type { WorkerMessage, WorkerRequest } from "./worker.ts";

const MEM_POLL_MS = 200;

/** The worker died for a reason that may not be the document's (retryable). */
export class WorkerCrash extends Error {}

export interface PoolOptions {
  size: number;
  timeoutMs: number;
  memoryBytes: number;
  command?: string[];
}

type Body = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

interface Slot {
  proc: Subprocess;
  /** Resolves when the worker has loaded its modules: time limits start after that. */
  ready: Promise<void>;
  busy: boolean;
  dead: boolean;
  onMessage?: (m: WorkerMessage) => void;
  onExit?: () => void;
}

/** `kbqa worker` from a compiled executable, `bun <abs>/cli.ts worker` from source. */
export function workerCommand(): string[] {
  const compiled = import.meta.path.startsWith("/$bunfs/") || import.meta.path.includes("~BUN");
  return compiled ? [process.execPath, "worker"] : [process.execPath, resolve(import.meta.dir, "../cli.ts"), "worker"];
}

export const formatSeconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
export function formatBytes(n: number): string {
  const gib = n / 2 ** 30;
  return gib >= 1 ? `${Number(gib.toFixed(1))} GiB` : `${Math.round(n / 2 ** 20)} MiB`;
}

export function rssBytes(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export class WorkerPool {
  private slots: Slot[] = [];
  private waiting: Record<"high" | "low", { res: (s: Slot) => void; rej: (e: Error) => void }[]> = { high: [], low: [] };
  private nextId = 1;
  private closed = false;
  private readonly command: string[];

  constructor(private opts: PoolOptions) {
    this.command = opts.command ?? workerCommand();
  }

  /** Pids of live workers (tests, diagnostics). */
  pids(): number[] {
    return this.slots.filter((s) => !s.dead).map((s) => s.proc.pid);
  }

  private spawn(): Slot {
    const slot: Slot = { busy: false, dead: false } as Slot;
    let markReady!: () => void;
    slot.ready = new Promise((r) => (markReady = r));
    slot.proc = Bun.spawn(this.command, {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "inherit",
      serialization: "advanced",
      ipc: (m: WorkerMessage) => (m.type === "ready" ? markReady() : slot.onMessage?.(m)),
      onExit: () => {
        slot.dead = true;
        markReady();
        this.slots = this.slots.filter((s) => s !== slot);
        slot.onExit?.();
        this.pump();
      },
    });
    this.slots.push(slot);
    return slot;
  }

  private acquire(priority: "high" | "low"): Promise<Slot> {
    return new Promise((res, rej) => {
      this.waiting[priority].push({ res, rej });
      this.pump();
    });
  }

  private pump() {
    for (;;) {
      const lane = this.waiting.high.length ? this.waiting.high : this.waiting.low;
      const w = lane.shift();
      if (!w) return;
      if (this.closed) {
        w.rej(new WorkerCrash("the worker pool is closed"));
        continue;
      }
      let slot = this.slots.find((s) => !s.busy && !s.dead);
      if (!slot && this.slots.length < this.opts.size) slot = this.spawn();
      if (!slot) {
        lane.unshift(w);
        return;
      }
      slot.busy = true;
      w.res(slot);
    }
  }

  /**
   * Sends one request and resolves with its result. Rejects with IngestFailure (user-facing:
   * the document's fault, including time and memory limits) or WorkerCrash (retryable).
   */
  async run(body: Body, o: { priority?: "high" | "low"; onMessage?: (m: WorkerMessage) => void } = {}): Promise<unknown> {
    const slot = await this.acquire(o.priority ?? "high");
    await slot.ready;
    const id = this.nextId++;
    let timer: Timer | undefined;
    let poll: Timer | undefined;
    try {
      return await new Promise<unknown>((res, rej) => {
        const kill = (err: Error) => {
          rej(err);
          slot.dead = true;
          slot.proc.kill("SIGKILL");
        };
        slot.onMessage = (m) => {
          if (m.type === "ready" || m.id !== id) return;
          if (m.type === "done") res(m.result);
          else if (m.type === "error") rej(m.failure ? new IngestFailure(m.message) : new WorkerCrash(m.message));
          else o.onMessage?.(m);
        };
        slot.onExit = () => rej(new WorkerCrash(`the ingestion worker exited (code ${slot.proc.exitCode ?? slot.proc.signalCode})`));
        timer = setTimeout(() => kill(new IngestFailure(`ingestion exceeded the ${formatSeconds(this.opts.timeoutMs)} limit`)), this.opts.timeoutMs);
        poll = setInterval(() => {
          const rss = rssBytes(slot.proc.pid);
          if (rss !== undefined && rss > this.opts.memoryBytes) {
            kill(new IngestFailure(`ingestion exceeded the ${formatBytes(this.opts.memoryBytes)} memory limit`));
          }
        }, MEM_POLL_MS);
        if (slot.dead) return rej(new WorkerCrash("the ingestion worker exited"));
        slot.proc.send({ ...body, id } as WorkerRequest);
      });
    } finally {
      clearTimeout(timer);
      clearInterval(poll);
      slot.onMessage = undefined;
      slot.onExit = undefined;
      // A worker that grew past half the limit is recycled: the heap rarely shrinks back.
      if (!slot.dead && (rssBytes(slot.proc.pid) ?? 0) > this.opts.memoryBytes / 2) {
        slot.dead = true;
        slot.proc.kill("SIGKILL");
      }
      slot.busy = false;
      this.pump();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pump();
    const procs = this.slots.map((s) => s.proc);
    for (const p of procs) p.kill("SIGKILL");
    await Promise.all(procs.map((p) => p.exited));
  }
}
