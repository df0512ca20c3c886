import { readFileSync } from "node:fs";
import { systemClock, type Clock } from "../store/time.ts";

/**
 * FOR TESTS ONLY. Enabled solely by the explicit `--test-fake-time-file PATH` flag: the usage
 * reports read "now" (epoch milliseconds, decimal) from PATH on every call, so HTTP tests can
 * look at the buckets their events fell into. While the file is absent the real time applies.
 * Only the usage service gets this clock: authentication and event timestamps keep real time.
 */
export function fakeTimeFileClock(path: string): Clock {
  return {
    now() {
      let text: string;
      try {
        text = readFileSync(path, "utf8").trim();
      } catch {
        return systemClock.now();
      }
      const ms = Number(text);
      if (!Number.isSafeInteger(ms)) throw new Error(`fake time file ${path} must hold epoch milliseconds, got "${text}"`);
      return ms;
    },
  };
}
