/**
 * A pool of reusable worker processes (worker.ts) with a wall-clock and a memory limit per
 * request. Bun ignores worker-thread resourceLimits, so the bound is a process we can kill:
 * its RSS is read from /proc/<pid>/status every MEM_POLL_MS and it is SIGKILLed when over.
 * A killed or crashed worker is dropped; the next request spawns a fresh one.
 * Requests wait in two priority lanes: parsing ("high") always goes before previews ("low").
 *
 * Pipelining: a request marked `small` may be sent to a worker that is still busy with other
 * small requests (up to PIPELINE_DEPTH), so the worker starts the next one the moment it ends
 * instead of waiting a round trip through a busy event loop. The worker handles its messages
 * in order; each request's time limit starts when the one before it ended. A request queued
 * behind one that kills or crashes the worker never started: it fails with WorkerAborted, which
 * is not the document's fault.
 *
 * Requests for one worker issued in the same turn of the event loop (a scheduler refill) travel
 * as one IPC message ({type: "batch"}): each message costs a serialisation and a write, which
 * was a large part of the server's time per small file. The worker unpacks it and handles the
 * requests one by one exactly as if they had come separately.
 *
 * Idle retirement: a worker that has held no request for `idleMs` exits (each holds ~80 MB with
 * its converters and warmed-up models) and the next request spawns a fresh one. Retirement and
 * dispatch both run synchronously on the event loop, and the timer re-checks that the worker
 * still holds nothing, so a request is never sent to a worker being retired.
 */
import { readFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { resolve } from "node:path";
import type { Subprocess } from "bun";
import { IngestFailure } from "./parsed.ts";
import type { WorkerMessage, WorkerReply, WorkerRequest } from "./worker.ts";
import { formatBytes, formatSeconds } from "./units.ts";

const MEM_POLL_MS = 200;
/**
 * How much lower the workers' scheduling priority is than the server's (nice steps). Ingestion
 * is background work: when the cores are busy, the server's event loop (API requests, and the
 * batch commits that turn parsed documents READY) runs first. Measured with 500 small files:
 * rounds about 10 % shorter and shorter API stalls than at equal priority (README, Performance).
 */
export const WORKER_NICE = 5;
/** Most small requests outstanding in one worker. */
export const PIPELINE_DEPTH = 16;

/** The worker died for a reason that may not be the document's (retryable). */
export class WorkerCrash extends Error {}
/** The worker process running the request exited under it (out of memory, a signal, a native fault). */
export class WorkerExited extends WorkerCrash {}
/** The request was queued in a worker that died before starting it (retry without blame). */
export class WorkerAborted extends WorkerCrash {}

export interface PoolOptions {
  size: number;
  timeoutMs: number;
  memoryBytes: number;
  /** A worker idle this long exits (0 or absent: workers live until the pool closes). */
  idleMs?: number;
  command?: string[];
}

type Body = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

interface Pending {
  id: number;
  small: boolean;
  body: Body;
  onMessage?: (m: WorkerMessage) => void;
  /** Called once, when the worker begins this request (its time limit starts): requests queued behind it have not. */
  onStart?: () => void;
  res: (v: unknown) => void;
  rej: (e: Error) => void;
  timer?: Timer;
}

interface Slot {
  proc: Subprocess;
  /** Resolves when the worker has loaded its modules: time limits start after that. */
  ready: Promise<void>;
  isReady: boolean;
  dead: boolean;
  /** Requests sent (or about to be) in order; the first is the one the worker is running. */
  inflight: Pending[];
  poll?: Timer;
  /** Resident bytes at the last poll. */
  rss?: number;
  /** Armed while the worker holds nothing: retires it when it fires. */
  idle?: Timer;
  /** Requests of this turn not yet written to the worker (see flush). */
  outbox: WorkerRequest[];
}

/** `kbqa worker` from a compiled executable, `bun <abs>/cli.ts worker` from source. */
export function workerCommand(): string[] {
  const compiled = import.meta.path.startsWith("/$bunfs/") || import.meta.path.includes("~BUN");
  return compiled ? [process.execPath, "worker"] : [process.execPath, resolve(import.meta.dir, "../cli.ts"), "worker"];
}


// A document stopped by a limit fails the same way every time it is retried, so the reason says
// what to do: the operator's setting that would let it finish (with its value now), or a smaller document.
export const timeLimitReason = (ms: number) =>
  `ingestion exceeded the ${formatSeconds(ms)} limit: raise --ingest-timeout-ms (now ${ms}) or split the document`;
export const memoryLimitReason = (bytes: number) =>
  `ingestion exceeded the ${formatBytes(bytes)} memory limit: raise --ingest-memory-bytes (now ${bytes}) or split the document`;

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
  private waiting: Record<"high" | "low", Pending[]> = { high: [], low: [] };
  private nextId = 1;
  private closed = false;
  private retiredCount = 0;
  private flushing = false;
  private readonly command: string[];

  constructor(private opts: PoolOptions) {
    this.command = opts.command ?? workerCommand();
  }

  /** Pids of live workers (tests, diagnostics). */
  pids(): number[] {
    return this.slots.filter((s) => !s.dead).map((s) => s.proc.pid);
  }

  /** Workers retired after their idle period since the pool started (tests, diagnostics). */
  retired(): number {
    return this.retiredCount;
  }

  private spawn(): Slot {
    const slot: Slot = { isReady: false, dead: false, inflight: [], outbox: [] } as unknown as Slot;
    let markReady!: () => void;
    slot.ready = new Promise((r) => (markReady = r));
    slot.proc = Bun.spawn(this.command, {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "inherit",
      serialization: "advanced",
      ipc: (reply: WorkerReply) => {
        for (const m of reply.type === "batch" ? reply.messages : [reply]) {
          if (m.type !== "ready") {
            this.onMessage(slot, m);
            continue;
          }
          slot.isReady = true;
          markReady();
          this.startHead(slot);
        }
      },
      onExit: () => {
        this.drop(slot, (p, head) =>
          head ? new WorkerExited(`the ingestion worker exited (code ${slot.proc.exitCode ?? slot.proc.signalCode})`) : new WorkerAborted("the ingestion worker exited before this request started"));
        markReady();
        this.pump();
      },
    });
    try {
      // Relative to the server's own priority (inherited by the child), at most the lowest.
      setPriority(slot.proc.pid, Math.min(getPriority(slot.proc.pid) + WORKER_NICE, 19));
    } catch {
      // Not fatal: the worker runs at the server's priority.
    }
    this.slots.push(slot);
    return slot;
  }

  /** Marks the slot dead, fails what it held (the running request and the queued ones). */
  private drop(slot: Slot, err: (p: Pending, head: boolean) => Error) {
    slot.dead = true;
    this.slots = this.slots.filter((s) => s !== slot);
    clearInterval(slot.poll);
    clearTimeout(slot.idle);
    slot.outbox = [];
    const held = slot.inflight.splice(0);
    held.forEach((p, i) => {
      clearTimeout(p.timer);
      p.rej(err(p, i === 0));
    });
  }

  private kill(slot: Slot, headErr: Error) {
    if (slot.dead) return;
    this.drop(slot, (_, head) => (head ? headErr : new WorkerAborted("another document stopped the ingestion worker before this one started")));
    slot.proc.kill("SIGKILL");
    this.pump();
  }

  /** The time limit of the request the worker runs now starts once the worker is ready. */
  private startHead(slot: Slot) {
    const head = slot.inflight[0];
    if (!head || !slot.isReady || head.timer || slot.dead) return;
    head.timer = setTimeout(() => this.kill(slot, new IngestFailure(timeLimitReason(this.opts.timeoutMs))), this.opts.timeoutMs);
    try {
      head.onStart?.();
    } catch {
      // The caller's bookkeeping; the request runs regardless.
    }
    slot.poll ??= setInterval(() => {
      const rss = (slot.rss = rssBytes(slot.proc.pid));
      if (rss !== undefined && rss > this.opts.memoryBytes) {
        this.kill(slot, new IngestFailure(memoryLimitReason(this.opts.memoryBytes)));
      } else if (!slot.inflight.length) this.recycleIfLarge(slot);
    }, MEM_POLL_MS);
    slot.poll.unref?.();
  }

  private onMessage(slot: Slot, m: Exclude<WorkerMessage, { type: "ready" }>) {
    const head = slot.inflight[0];
    if (!head || m.id !== head.id) return;
    if (m.type !== "done" && m.type !== "error") {
      try {
        head.onMessage?.(m);
      } catch {
        // A listener's failure is its own: thrown here, inside Bun's IPC callback, it would end the server.
      }
      return;
    }
    clearTimeout(head.timer);
    slot.inflight.shift();
    if (m.type === "done") head.res(m.result);
    else head.rej(m.failure ? new IngestFailure(m.message) : new WorkerCrash(m.message));
    if (!slot.inflight.length) {
      // A worker that grew past half the limit is recycled once idle: the heap rarely shrinks back.
      // The poll's last reading decides: reading /proc/<pid>/status of a worker that is busy
      // allocating waits for its memory map lock, and this runs for every batch of small files.
      // The poll itself keeps running while the worker lives (5 reads a second).
      if (!this.recycleIfLarge(slot)) this.armIdle(slot);
    }
    this.startHead(slot);
    this.pump();
  }

  /** Retires an idle worker whose last reading is past half the memory limit. */
  private recycleIfLarge(slot: Slot): boolean {
    if (slot.dead || (slot.rss ?? 0) <= this.opts.memoryBytes / 2) return false;
    this.drop(slot, () => new WorkerAborted("recycled"));
    slot.proc.kill("SIGKILL");
    return true;
  }

  private armIdle(slot: Slot) {
    const ms = this.opts.idleMs ?? 0;
    if (ms <= 0 || slot.dead) return;
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      slot.idle = undefined;
      // A request may have been sent since the timer was armed: then the worker stays.
      if (slot.dead || slot.inflight.length || this.closed) return;
      this.retiredCount++;
      this.drop(slot, () => new WorkerAborted("retired while idle"));
      // SIGTERM: the worker holds nothing; its onExit finds the slot already dropped.
      slot.proc.kill("SIGTERM");
    }, ms);
    slot.idle.unref?.();
  }

  private pump() {
    for (;;) {
      const lane = this.waiting.high.length ? this.waiting.high : this.waiting.low;
      const p = lane[0];
      if (!p) return;
      if (this.closed) {
        lane.shift();
        p.rej(new WorkerAborted("the worker pool is closed"));
        continue;
      }
      let slot = this.slots.find((s) => !s.dead && !s.inflight.length);
      if (!slot && this.slots.length < this.opts.size) slot = this.spawn();
      if (!slot && p.small) {
        // The least loaded worker that only holds small requests.
        const open = this.slots.filter((s) => !s.dead && s.inflight.length < PIPELINE_DEPTH && s.inflight.every((q) => q.small));
        slot = open.sort((a, b) => a.inflight.length - b.inflight.length)[0];
      }
      if (!slot) return;
      lane.shift();
      clearTimeout(slot.idle);
      slot.idle = undefined;
      slot.inflight.push(p);
      slot.outbox.push({ ...p.body, id: p.id } as WorkerRequest);
      if (!this.flushing) {
        this.flushing = true;
        queueMicrotask(() => this.flush());
      }
      this.startHead(slot);
    }
  }

  /** Writes each worker's requests of this turn as one message (a lone request as itself). */
  private flush() {
    this.flushing = false;
    for (const slot of this.slots) {
      if (slot.dead || !slot.outbox.length) continue;
      const out = slot.outbox;
      slot.outbox = [];
      slot.proc.send(out.length === 1 ? out[0]! : { type: "batch", requests: out });
    }
  }

  /**
   * Sends one request and resolves with its result. Rejects with IngestFailure (user-facing:
   * the document's fault, including time and memory limits) or WorkerCrash (retryable;
   * WorkerAborted when the request never started, or the pool closed under it).
   */
  run(
    body: Body,
    o: { priority?: "high" | "low"; small?: boolean; onMessage?: (m: WorkerMessage) => void; onStart?: () => void } = {},
  ): Promise<unknown> {
    return new Promise((res, rej) => {
      this.waiting[o.priority ?? "high"].push({ id: this.nextId++, small: !!o.small, body, onMessage: o.onMessage, onStart: o.onStart, res, rej });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pump();
    const slots = [...this.slots];
    // A stop is not the document's doing, even for the request a worker was running: aborted,
    // so the job goes back to the queue with its attempt unspent (ingest-job.ts onError).
    for (const s of slots) this.drop(s, () => new WorkerAborted("the worker pool is closed"));
    for (const s of slots) s.proc.kill("SIGKILL");
    await Promise.all(slots.map((s) => s.proc.exited));
  }
}
