// Benchmarks that time each kind of work in a fresh process (memory and JIT state of one kind
// must not leak into another), kinds rotated every round so each sees the same drift of a shared
// machine: the parent spawns this same script with `--child KIND --rows N` plus `extra` flags and
// reads one JSON result from the child's stdout.

/** Every (size, round, kind) once, kinds rotated by round; children's results in run order. */
export async function runRotated<R>(script: string, kinds: readonly string[], sizes: number[], rounds: number, extra: string[]): Promise<R[]> {
  const results: R[] = [];
  for (const n of sizes) {
    for (let round = 0; round < rounds; round++) {
      for (const kind of kinds.map((_, i) => kinds[(i + round) % kinds.length]!)) {
        const p = Bun.spawn([process.execPath, script, "--child", kind, "--rows", String(n), ...extra], { stdout: "pipe", stderr: "inherit" });
        const text = await new Response(p.stdout).text();
        if ((await p.exited) !== 0) throw new Error(`${kind} at ${n} rows failed`);
        const r = JSON.parse(text) as R;
        results.push(r);
        console.error(`  ${n} ${kind} round ${round + 1}: ${JSON.stringify(r)}`);
      }
    }
  }
  return results;
}

/** "lo–hi" of the defined values at `digits` decimals ("lo" when they round alike, "–" when none). */
export function range(xs: (number | undefined)[], digits: number): string {
  const v = xs.filter((x): x is number => x !== undefined);
  if (!v.length) return "–";
  const [lo, hi] = [Math.min(...v), Math.max(...v)];
  return lo.toFixed(digits) === hi.toFixed(digits) ? lo.toFixed(digits) : `${lo.toFixed(digits)}–${hi.toFixed(digits)}`;
}

/** The 1, 5 and 15 minute load averages, as /proc/loadavg gives them. */
export async function loadAverage(): Promise<string> {
  return (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
}
