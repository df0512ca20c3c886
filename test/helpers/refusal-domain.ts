/**
 * One test per group of mutating operations: build a world, sweep its refusals (refusal-sweep.ts)
 * and fail with every refusal that changed an organization's observable state.
 */
import { expect, test } from "bun:test";
import { hiddenOps, opsOf } from "./fuzz-ops.ts";
import { startWorld, type World } from "./fuzz-world.ts";
import { report, sweep, WRITES, type Refusal } from "./refusal-sweep.ts";

export function refusalsChangeNothing(group: string, match: (key: string) => boolean, minOps: number, extra?: (w: World) => Promise<Refusal[]>) {
  test(`${group}: every refused write (4xx or 5xx) leaves both organizations' listings, usage and tokens as they were`, async () => {
    await using w = await startWorld();
    const ops = [...opsOf(w, (k) => WRITES(k) && match(k)), ...hiddenOps(w).filter((o) => WRITES(o.key) && match(o.key))];
    expect(ops.length).toBeGreaterThanOrEqual(minOps);
    const t0 = performance.now();
    const { defects, perOp } = await sweep(w, ops, await extra?.(w));
    const refused = Object.values(perOp).reduce((s, x) => s + x.refused, 0);
    console.log(`${group}: ${ops.length} operations, ${refused} refused requests checked in ${Math.round(performance.now() - t0)} ms`);
    for (const [op, n] of Object.entries(perOp)) console.log(`  ${op}: ${n.refused} refused, ${n.accepted} accepted`);
    expect(refused).toBeGreaterThan(ops.length * 20);
    expect(report(defects)).toBe("");
  }, 120_000);
}
