/** A small closed-loop HTTP load generator: `concurrency` clients for `seconds`, bounded in count and time. */
export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function load(url: string, init: RequestInit, opts: { concurrency: number; seconds: number; maxRequests?: number }): Promise<LoadResult> {
  const lat: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + opts.seconds * 1000;
  const max = opts.maxRequests ?? 1_000_000;
  const worker = async () => {
    while (performance.now() < end && lat.length + errors < max) {
      const t = performance.now();
      const r = await fetch(url, init);
      await r.arrayBuffer();
      if (r.status !== 200) errors++;
      else lat.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  return { requests: lat.length, seconds, rps: lat.length / seconds, p50: percentile(lat, 50), p99: percentile(lat, 99), errors };
}

export const fmt = (r: LoadResult) => `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms (${r.requests} requests, ${r.errors} errors)`;
