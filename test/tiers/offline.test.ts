// "Nothing in the process opens a network connection except to a configured remote endpoint":
// the whole ingest-and-query scenario runs inside a fresh network namespace (`unshare -n`, only
// a loopback interface) — the server, its ingestion workers, the CLI and the client alike — on
// the built-in tier, the local tier (transformers.js and llama.cpp, which must not reach for a
// hub) and the remote tier (its OpenAI-compatible stub started inside the namespace too). Where
// strace exists, every connect/send with an address is recorded for the whole process tree and
// may only name the server's own loopback port or the configured remote endpoint: an attempt to
// go out, which the namespace makes fail quietly, is caught too (it caught ONNX Runtime's
// telemetry looking up its collector).
// Without unshare the scenario still runs, and the isolation checks are skipped with the reason.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers/server.ts";
import { expectScenario } from "./expect-scenario.ts";
import { CHAT_ID, EMBED_ID, STORIES_MISSING } from "./local-models.ts";
import { REMOTE_CHAT, REMOTE_EMBED } from "./remote-stub.ts";
import type { ScenarioResult } from "./scenario.ts";

const ok = (argv: string[]) => {
  try {
    return Bun.spawnSync(argv, { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  } catch {
    return false; // the program is absent
  }
};
const CUT = process.platform === "linux" && ok(["unshare", "-n", "sh", "-c", "ip link set lo up"]);
const TRACED = ok(["strace", "-f", "-qq", "-e", "trace=connect", "-o", "/dev/null", "true"]);
if (!CUT) console.warn("offline tier: `unshare -n` (root, Linux, iproute2) unavailable here: the scenario runs with the network NOT cut off");
if (!TRACED) console.warn("offline tier: strace unavailable: outbound connection attempts are not recorded");

type Tier = "builtin" | "local" | "remote";
interface Run {
  tier: Tier;
  port: number;
  remotePort?: number;
  remoteCalls?: string[];
  interfaces: string[];
  result: ScenarioResult;
  attempts: string[];
  inet: Endpoint[];
}
interface Endpoint { family: string; addr: string; port: number; line: string }

const dir = tempDir("kbqa-offline-");
afterAll(() => dir[Symbol.dispose]());

/** connect/sendto/sendmsg lines of the strace log that name an IPv4 or IPv6 address. */
function inetEndpoints(log: string): Endpoint[] {
  const out: Endpoint[] = [];
  for (const line of log.split("\n")) {
    if (!/\b(connect|sendto|sendmsg|sendmmsg)\(/.test(line)) continue;
    const v4 = /sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/.exec(line);
    const v6 = /sa_family=AF_INET6, sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, "([^"]+)"/.exec(line);
    if (v4) out.push({ family: "inet", addr: v4[2]!, port: Number(v4[1]), line });
    else if (v6) out.push({ family: "inet6", addr: v6[2]!, port: Number(v6[1]), line });
  }
  return out;
}

async function runOffline(tier: Tier): Promise<Run> {
  const log = join(dir.path, `${tier}.strace`);
  const argv = [
    ...(TRACED ? ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg,sendmmsg", "-e", "signal=none", "-o", log] : []),
    ...(CUT ? ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"] : []),
    "bun", join(ROOT, "test/tiers/offline-runner.ts"), tier,
  ];
  const p = Bun.spawn(argv, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const line = stdout.split("\n").find((l) => l.startsWith("OFFLINE-RESULT "));
  if (code !== 0 || !line) throw new Error(`offline runner (${tier}) exited ${code}:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`);
  const run = JSON.parse(line.slice("OFFLINE-RESULT ".length));
  const text = TRACED ? readFileSync(log, "utf8") : "";
  if (TRACED) rmSync(log);
  const inet = inetEndpoints(text);
  // The only addresses anything may name: the server's own port on loopback (client → server)
  // and the configured remote endpoint (server → stub).
  const allowed = new Set([run.port, run.remotePort].filter((p) => p !== undefined));
  const attempts = inet.filter((e) => !((e.addr === "127.0.0.1" || e.addr === "::1") && allowed.has(e.port))).map((e) => e.line);
  return { ...run, inet, attempts };
}

const describeLocal = describe.skipIf(STORIES_MISSING);

const WANT = {
  builtin: { embedding: "builtin-hash-embed", chat: "builtin-extractive" },
  local: { embedding: EMBED_ID, chat: CHAT_ID },
  remote: { embedding: `remote:${REMOTE_EMBED}`, chat: `remote:${REMOTE_CHAT}` },
};

for (const tier of ["builtin", "local", "remote"] as const) {
  (tier === "local" ? describeLocal : describe)(`${tier} tier, ${CUT ? "network namespace cut off (unshare -n)" : "network NOT cut off (unshare -n unavailable)"}`, () => {
    let run: Run;
    beforeAll(async () => {
      run = await runOffline(tier);
    });

    test("the full ingest-and-query scenario succeeds", () => {
      expectScenario(run.result, { ...WANT[tier], tier });
      if (tier === "remote") expect([...new Set(run.remoteCalls)].sort()).toEqual(["/v1/chat/completions", "/v1/embeddings"]);
    });

    test.skipIf(!CUT)("it ran in a namespace whose only interface is loopback", () => {
      expect(run.interfaces).toEqual(["lo"]);
    });

    test.skipIf(!TRACED)("no process of the tree tried to reach any address but the server's own loopback port and the configured remote endpoint", () => {
      expect(run.attempts).toEqual([]);
      // The trace did see the client's connections, so an empty list is not an empty trace.
      expect(run.inet.length).toBeGreaterThan(0);
      // ... and it sees the server's own connections: those to the remote endpoint.
      if (tier === "remote") expect(run.inet.some((e) => e.port === run.remotePort)).toBe(true);
    });
  });
}
