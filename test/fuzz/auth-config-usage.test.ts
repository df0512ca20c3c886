// Schema-driven fuzz of access tokens, whoami, the model list, usage reports and the health
// check (generator: test/helpers/fuzz-cases.ts; FUZZ_SEED and FUZZ_CAP replay or widen a run).
// This file also checks that the domain files together cover the whole published document.
import { expect, test } from "bun:test";
import { fuzzDomain } from "../helpers/fuzz-domain.ts";
import { DOMAINS } from "../helpers/fuzz-ops.ts";
import { startKbqa } from "../helpers/server.ts";

test("every operation of /openapi.json is fuzzed by exactly one domain file", async () => {
  await using k = await startKbqa();
  const { paths } = (await k.request("GET", "/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
  const keys = Object.entries(paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
  expect(keys.length).toBeGreaterThanOrEqual(50);
  const owners = keys.map((key) => ({ key, domains: Object.keys(DOMAINS).filter((d) => DOMAINS[d]!(key)) }));
  expect(owners.filter((o) => o.domains.length !== 1)).toEqual([]);
});

fuzzDomain("auth, config, usage, health", { minOps: 8 });
