// A counting semaphore for generation slots: at most `size` holders, FIFO waiters, each waiter
// gives up with ModelBusyError after `timeoutMs`, or with the abort reason when its signal fires.
import { ModelBusyError } from "./errors.ts";

interface Waiter { grant: () => void; fail: (e: unknown) => void }

export class Slots {
  private used = 0;
  private waiters: Waiter[] = [];
  constructor(private readonly size: number, private readonly timeoutMs: number, private readonly modelId: string) {}

  get inUse(): number { return this.used; }
  get waiting(): number { return this.waiters.length; }

  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.used < this.size) {
      this.used++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      const waiter: Waiter = {
        grant: () => { done(); this.used++; resolve(this.releaser()); },
        fail: (e) => { done(); reject(e); },
      };
      const timer = setTimeout(() => waiter.fail(new ModelBusyError(this.modelId, Date.now() - started)), this.timeoutMs);
      const onAbort = () => waiter.fail(signal!.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
      this.waiters[0]?.grant();
    };
  }
}
