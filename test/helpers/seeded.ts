/** Repeatable pseudo-random numbers in [0, 1) (a linear congruential generator): a failing case can be replayed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/** The result of `f` and the milliseconds it took. */
export function timed<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
}
