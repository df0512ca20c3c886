// Schema-driven fuzz of access tokens, whoami, the model list, usage reports and the health
// check (generator: test/helpers/fuzz-cases.ts; FUZZ_SEED and FUZZ_CAP replay or widen a run),
// and of the claims of a signed JWT, which no schema describes. This file also checks that the
// domain files together cover the whole published document.
import { expect, test } from "bun:test";
import { SignJWT } from "jose";
import { fuzzDomain } from "../helpers/fuzz-domain.ts";
import { DOMAINS } from "../helpers/fuzz-ops.ts";
import { judge } from "../helpers/fuzz-run.ts";
import { nested } from "../helpers/fuzz-values.ts";
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

const VALUES: [string, unknown][] = [
  ["null", null], ["true", true], ["0", 0], ["-1", -1], ["1.5", 1.5], ["1e308", 1e308], ["empty", ""], ["blank", "  "], ["text", "x"],
  ["10k characters", "k".repeat(10_000)], ["lone surrogate", "ab\ud800cd"], ["NUL", "a\u0000b"], ["RTL", "\u202eabc"], ["emoji", "user 😀"],
  ["empty array", []], ["array", ["corpus:read", 5]], ["object", { a: 1 }], ["nested", nested(100)],
];

test("a signed JWT with any value in any claim is admitted or refused with 403, and an admitted sub is stored exactly", async () => {
  await using k = await startKbqa();
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "claims" })).body.id;
  const problems: string[] = [];
  const now = Math.floor(Date.now() / 1000);
  for (const claim of ["sub", "email", "name", "scope", "exp", "nbf", "iat", "iss", "aud", "jti"]) {
    for (const [label, value] of VALUES) {
      // jose's setters check their arguments: the claims go in as a raw payload.
      const payload: Record<string, unknown> = { sub: "user-1", exp: now + 600, iat: now, [claim]: value };
      const jwt = await new SignJWT(payload as never).setProtectedHeader({ alg: "RS256", kid: org.kid }).sign(org.privateKey);
      const r = await fetch(`${k.url}/v1/session/`, {
        method: "POST", headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: JSON.stringify({ corpusIds: [corpusId] }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await r.text();
      const body = JSON.parse(text);
      const seen = `${claim}: ${label} → ${r.status} ${text.slice(0, 200)}`;
      const wrong = judge({ op: "POST /v1/session/", label, method: "POST", url: "/v1/session/", headers: {} }, { status: r.status, text, json: body, ms: 0 });
      if (wrong) problems.push(`${seen}: ${wrong}`);
      else if (r.status !== 200 && r.status !== 403) problems.push(`${seen}: neither admitted nor refused`);
      else if (r.status === 200 && body.userId !== payload.sub) problems.push(`${seen}: stored as owned by ${JSON.stringify(body.userId)}`);
    }
  }
  expect(problems).toEqual([]);
  expect((await k.request("GET", "/pub/ping")).status).toBe(200);
});
