/**
 * Authenticated GET /v1/corpus/{id} (JWT verification, key lookup, scope check, SQLite read)
 * against a bare Elysia route with no auth and no database, measured in the same run with the
 * same load generator. Rounds alternate so machine noise hits both sides alike.
 * Usage: bun scripts/bench-auth.ts [seconds-per-round=5] [concurrency=16] [rounds=3]
 */
import { join } from "node:path";
import { readListeningLine, startKbqa } from "../test/helpers/server.ts";
import { fmt, load, type LoadResult } from "./lib/load.ts";

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 16);
const rounds = Number(process.argv[4] ?? 3);

const k = await startKbqa();
const org = await k.org("bench");
const corpus = await org.api("POST", "/v1/corpus/", { name: "bench" });
const jwt = await org.jwt({}, { expSeconds: 3600 });

const bare = Bun.spawn(["bun", join(import.meta.dir, "lib/bare-elysia.ts")], { stdout: "pipe", stderr: "inherit" });
const bareUrl = await readListeningLine(bare, () => "");

const authUrl = `${k.url}/v1/corpus/${corpus.body.id}`;
const init = { headers: { authorization: `Bearer ${jwt}` } };
// Warm up both (JIT, key import cache, SQLite page cache).
await load(authUrl, init, { concurrency, seconds: 1 });
await load(`${bareUrl}/v1/corpus/${corpus.body.id}`, {}, { concurrency, seconds: 1 });

const best = (a: LoadResult | undefined, b: LoadResult) => (!a || b.rps > a.rps ? b : a);
let A: LoadResult | undefined;
let B: LoadResult | undefined;
for (let i = 0; i < rounds; i++) {
  A = best(A, await load(authUrl, init, { concurrency, seconds }));
  B = best(B, await load(`${bareUrl}/v1/corpus/${corpus.body.id}`, {}, { concurrency, seconds }));
}
console.log(`authenticated GET /v1/corpus/{id}: ${fmt(A!)}`);
console.log(`bare Elysia route:                 ${fmt(B!)}`);
console.log(`ratio (authenticated / bare throughput): ${((A!.rps / B!.rps) * 100).toFixed(1)}% (target >= 30%)`);
bare.kill();
await k.stop();
