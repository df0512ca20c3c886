/** Repeatable pseudo-random numbers in [0, 1) (a linear congruential generator): a failing case can be replayed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/**
 * The result of `f` and the milliseconds its fastest of `runs` runs took. The callers guard against
 * a complexity regression (seconds where milliseconds are due), which slows every run; a busy
 * machine (the suite beside other work on two cores) slows one run now and then, and the fastest
 * run leaves that out. `f` must do the same work each time.
 */
export function timed<T>(f: () => T, runs = 3): [T, number] {
  let best = Infinity;
  let r!: T;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    r = f();
    best = Math.min(best, performance.now() - t0);
  }
  return [r, best];
}

/**
 * mulberry32: repeatable numbers in [0, 1), well mixed in every bit (a bit of `rng`'s low bits
 * repeats with a short period). The benchmarks' seeded data sets are drawn from it.
 */
export function mulberry32(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
