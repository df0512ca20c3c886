/**
 * How long a body that fails validation holds the server, against what its bytes cost anyway.
 * Each shape is sent (about 14 MB unless said, under the 16 MiB limit and the 64-level depth
 * limit) to a real kbqa server while a second client pings `/pub/ping` back to back: a ping waits
 * as long as the event loop is held, so the worst ping is the longest hold. Baselines in the same
 * run, same bytes:
 * - `JSON.parse` in this process (what any JSON route pays);
 * - a bare Elysia route that parses the body and validates nothing;
 * - a bare Elysia route validating against the service's schema as Elysia alone does (how kbqa
 *   refused before src/http/quiet-refusals.ts): `--skip-elysia` leaves it out (it takes 10–20 s per
 *   deep body on a 2-core machine).
 * Usage: bun scripts/bench-invalid-body.ts [runs=3] [--skip-elysia]
 */
import { join } from "node:path";
import { readListeningLine, startKbqa } from "../test/helpers/server.ts";
import { watchPings } from "./lib/ping-watch.ts";

const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3);
const skipElysia = process.argv.includes("--skip-elysia");
const MB = 14_000_000;

/** A value nested `depth` levels (arrays), the innermost holding numbers up to `bytes`. */
const spine = (depth: number, bytes: number) => {
  const n = Math.floor((bytes - 2 * depth) / 2);
  return "[".repeat(depth - 1) + "[" + "1,".repeat(n - 1) + "1]" + "]".repeat(depth - 1);
};
const repeatTo = (item: string, bytes: number) => Array(Math.floor(bytes / (item.length + 1))).fill(item).join(",");
const manyKeys = (bytes: number) => {
  const parts: string[] = [];
  for (let n = 0, i = 0; n < bytes; i++) {
    const p = `"k${i}":1`;
    parts.push(p);
    n += p.length + 1;
  }
  return "{" + parts.join(",") + "}";
};
const tree = (d: number, b: number): string => (d === 0 ? "1" : "[" + Array(b).fill(tree(d - 1, b)).join(",") + "]");

interface Shape {
  label: string;
  path: "/v1/corpus/" | "/v1/session/";
  raw: string;
  message: string;
}
const description = "Invalid body field 'description': must be a string of at most 10000 characters, or null";
const shapes: Shape[] = [
  { label: "description nested 63 levels, 7M numbers innermost", path: "/v1/corpus/", raw: `{"name":"n","description":${spine(63, MB)}}`, message: description },
  { label: "description: array of 930k small objects", path: "/v1/corpus/", raw: `{"name":"n","description":[${repeatTo('{"a":1,"b":"x"}', MB)}]}`, message: description },
  { label: "description: object of 1.3M keys", path: "/v1/corpus/", raw: `{"name":"n","description":${manyKeys(MB)}}`, message: description },
  { label: "description: 14 MB string", path: "/v1/corpus/", raw: `{"name":"n","description":"${"x".repeat(MB)}"}`, message: description },
  { label: "description: balanced tree, 21 levels of 2 (4.2 MB)", path: "/v1/corpus/", raw: `{"name":"n","description":${tree(20, 2)}}`, message: description },
  {
    label: "corpusIds: 100 failing items, each 140 KB of numbers",
    path: "/v1/session/",
    raw: `{"corpusIds":[${Array(100).fill(`{"a":[${repeatTo("1", MB / 100)}]}`).join(",")}]}`,
    message: "Invalid body field 'corpusIds[0]': must be a UUID",
  },
  { label: "corpusIds: 4.6M failing items", path: "/v1/session/", raw: `{"corpusIds":[${repeatTo("1", MB)}]}`, message: "Invalid body field 'corpusIds': must be an array of 1 to 100 items, each a UUID" },
];

const k = await startKbqa();
const org = await k.org("bench");
const jwt = await org.jwt({}, { expSeconds: 3600 });
const bare = Bun.spawn(["bun", join(import.meta.dir, "lib/bare-elysia-body.ts")], { stdout: "pipe", stderr: "inherit" });
const bareUrl = await readListeningLine(bare, () => "");

/** Sends `raw` while pinging `pingUrl` back to back; the answer's time and the worst ping. */
async function timed(url: string, raw: string, headers: Record<string, string>, pingUrl: string) {
  const pings = watchPings(pingUrl, 0);
  const t0 = performance.now();
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: raw });
  const text = await r.text();
  const ms = performance.now() - t0;
  return { ms, worst: await pings.stop(), status: r.status, text };
}

const range = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  return s.length === 1 ? f(s[0]!) : `${f(s[0]!)}–${f(s[s.length - 1]!)}`;
};

console.log(`runs per shape: ${runs}; load average ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`);
console.log("| shape | MB | JSON.parse in-process | bare Elysia, no validation | Elysia's own refusal (before) | kbqa refusal | kbqa worst ping |");
console.log("|---|---|---|---|---|---|---|");
for (const s of shapes) {
  const parse: number[] = [];
  const parseOnly: number[] = [];
  const elysia: number[] = [];
  const kbqa: number[] = [];
  const ping: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    JSON.parse(s.raw);
    parse.push(performance.now() - t0);
    const p = await timed(`${bareUrl}/parse-only`, s.raw, {}, `${bareUrl}/pub/ping`);
    if (p.status !== 200) throw new Error(`parse-only answered ${p.status}: ${p.text.slice(0, 200)}`);
    parseOnly.push(p.ms);
    if (!skipElysia) {
      const e = await timed(`${bareUrl}${s.path}`, s.raw, {}, `${bareUrl}/pub/ping`);
      if (e.status !== 400) throw new Error(`bare Elysia answered ${e.status}`);
      elysia.push(e.ms);
    }
    const q = await timed(`${k.url}${s.path}`, s.raw, { authorization: `Bearer ${jwt}` }, `${k.url}/pub/ping`);
    const message = (JSON.parse(q.text) as { message?: string }).message;
    if (q.status !== 400 || message !== s.message) throw new Error(`kbqa answered ${q.status} ${message}`);
    kbqa.push(q.ms);
    ping.push(q.worst);
  }
  console.log(
    `| ${s.label} | ${(s.raw.length / 1e6).toFixed(1)} | ${range(parse)} ms | ${range(parseOnly)} ms | ${skipElysia ? "–" : `${range(elysia)} ms`} | **${range(kbqa)} ms** | ${range(ping)} ms |`,
  );
}
bare.kill();
await k.stop();
