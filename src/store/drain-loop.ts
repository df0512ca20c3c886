import type { Logger } from "../context.ts";

/**
 * A background loop that carries out work recorded in a table by earlier transactions (vector
 * drops, chunk drops): a pass runs when kicked and every `pollMs` otherwise, one pass at a time
 * (a kick during a pass runs another right after it), and a pass that fails leaves the rows for
 * the next one, logged once until a pass succeeds again. `pass` checks `closed()` between steps
 * so that close() waits for one step at most.
 */
/**
 * Resolves on a later turn of the event loop than every background turn already waiting here.
 * Loops that each yielded with setImmediate had their next transactions run back to back in the
 * same check phase (a corpus turn, then a chunk turn, then a vector pass), and a request arriving
 * meanwhile waited for all of them: 376 ms at 50,000 documents when the longest single turn took
 * 198 ms. Chained here, one background step runs per turn of the loop, and requests (I/O) in
 * between.
 */
let gate: Promise<void> = Promise.resolve();
export function nextTurn(): Promise<void> {
  const p = gate.then(() => new Promise<void>((r) => setImmediate(r)));
  gate = p;
  return p;
}

export interface DrainLoop {
  kick(): void;
  close(): Promise<void>;
}

export function startDrainLoop(o: {
  pass: (closed: () => boolean) => Promise<void>;
  pollMs: number;
  log: Logger;
  /** Said once when passes start failing ("could not …; retrying") and when one succeeds again. */
  failing: string;
  recovered: string;
  /** Start each pass on a later turn, so the request that kicked it answers first. */
  deferred?: boolean;
}): DrainLoop {
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let failing = false;
  const isClosed = () => closed;
  const kick = () => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    const started = o.deferred ? nextTurn().then(() => o.pass(isClosed)) : o.pass(isClosed);
    running = started
      .then(() => {
        if (failing) o.log.info(o.recovered);
        failing = false;
      })
      .catch((e) => {
        if (!failing) o.log.error(o.failing, { error: String(e) });
        failing = true;
        again = false;
      })
      .finally(() => {
        running = null;
        if (again && !closed) {
          again = false;
          kick();
        }
      });
  };
  const timer = setInterval(kick, o.pollMs);
  timer.unref?.();
  kick();
  return {
    kick,
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
