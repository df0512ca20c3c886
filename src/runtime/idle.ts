/**
 * Idle-time maintenance: once the server has served no request for `quietMs`, has none in
 * flight and ingestion is idle, it gives memory back to the OS once (release-memory.ts: freed
 * native heap, resident code pages; no forced GC, which slows the next request), then waits
 * for the next activity before doing it again. A busy server never pays for it; a quiet
 * one shows the resident memory it needs rather than the high-water mark of its last burst.
 */
import type { ReleaseReport } from "./release-memory.ts";

export interface IdleOptions {
  /** Quiet time before maintenance runs (ms). */
  quietMs?: number;
  /** How often quietness is checked (ms). */
  checkMs?: number;
  now?: () => number;
  /** Other work that must be idle too: requests in flight, ingestion. */
  busy?: () => boolean;
  /** The maintenance itself (tests inject theirs). */
  run?: () => Promise<ReleaseReport | unknown>;
  onError?: (e: unknown) => void;
}

export interface IdleMaintenance {
  /** Records activity (call on every request). */
  touch(): void;
  /** Checks now instead of at the next interval (tests). */
  check(): Promise<void>;
  /** Maintenance runs so far, and the last one's report. */
  runs(): number;
  last(): unknown;
  stop(): void;
}

export const DEFAULT_QUIET_MS = 5_000;

export function startIdleMaintenance(o: IdleOptions = {}): IdleMaintenance {
  const quietMs = o.quietMs ?? DEFAULT_QUIET_MS;
  const now = o.now ?? Date.now;
  const run = o.run ?? (async () => (await import("./release-memory.ts")).releaseMemory({ codePages: true }));
  let lastActive = now();
  /** Whether activity happened since the last maintenance (start counts as activity). */
  let dirty = true;
  let running: Promise<void> | null = null;
  let count = 0;
  let report: unknown;

  const check = async () => {
    if (running) return running;
    if (!dirty || now() - lastActive < quietMs) return;
    if (o.busy?.()) {
      lastActive = now();
      return;
    }
    dirty = false;
    running = (async () => {
      try {
        report = await run();
        count++;
      } catch (e) {
        o.onError?.(e);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const timer = setInterval(() => void check(), o.checkMs ?? 1_000);
  // Maintenance must never keep a process alive that would otherwise exit.
  timer.unref?.();

  return {
    touch() {
      lastActive = now();
      dirty = true;
    },
    check,
    runs: () => count,
    last: () => report,
    stop: () => clearInterval(timer),
  };
}
