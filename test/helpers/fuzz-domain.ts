/**
 * One test per domain: start a world (fuzz-world.ts), fuzz the domain's operations, then prove
 * the server is still healthy and the organizations' data reads as it did before the run.
 */
import { expect, test } from "bun:test";
import type { Case } from "./fuzz-cases.ts";
import { DOMAINS, hiddenOps, opsOf } from "./fuzz-ops.ts";
import { CAP, fuzzCases, fuzzOps, report, SEED } from "./fuzz-run.ts";
import { storageCases } from "./fuzz-storage.ts";
import { rng } from "./seeded.ts";
import { startWorld, type World } from "./fuzz-world.ts";

export function fuzzDomain(domain: keyof typeof DOMAINS, opts: { minOps: number; extra?: (w: World) => Case[] }) {
  test(`${domain}: every generated request answers below 500, in time, with the error object naming the field (seed ${SEED}, ${CAP} per operation)`, async () => {
    await using w = await startWorld();
    const before = await w.snapshot();
    const match = DOMAINS[domain]!;
    const ops = [...opsOf(w, (k) => match(k) && !k.includes(" /storage/")), ...hiddenOps(w).filter((o) => match(o.key))];
    expect(ops.length).toBeGreaterThanOrEqual(opts.minOps);
    const { failures, sent } = await fuzzOps(w, ops);
    failures.push(...(await fuzzCases(w, opts.extra?.(w) ?? [])));
    const ping = await w.k.request("GET", "/pub/ping");
    const after = await w.snapshot();
    console.log(`${domain}: ${ops.length} operations, ${sent} requests, ${failures.length} failures`);
    expect(report(failures)).toBe("");
    expect(ping.status).toBe(200);
    expect(after).toBe(before);
  }, 180_000);
}

export const storage = (w: World) => storageCases(w, rng(SEED));
