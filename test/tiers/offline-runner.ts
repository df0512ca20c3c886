// Runs the tier scenario from inside whatever network namespace it was started in (the offline
// test starts it under `unshare -n`, loopback up), so client and server share the namespace's
// loopback. Usage: bun test/tiers/offline-runner.ts builtin|local
// Prints one line `OFFLINE-RESULT <json>`: the scenario result, the server's port (and the remote
// stub's), and the network interfaces the namespace has.
import { readFileSync } from "node:fs";
import { startKbqa } from "../helpers/server.ts";
import { localModelsDir } from "./local-models.ts";
import { startRemoteStub } from "./remote-stub.ts";
import { runScenario } from "./scenario.ts";

/** Interfaces of this process's network namespace (/sys/class/net shows the mount's, not ours). */
const interfaces = () => readFileSync("/proc/self/net/dev", "utf8").split("\n").slice(2).map((l) => l.split(":")[0]!.trim()).filter(Boolean).sort();

const tier = process.argv[2];
if (tier !== "builtin" && tier !== "local" && tier !== "remote") throw new Error(`usage: offline-runner.ts builtin|local|remote (got ${tier})`);

const models = tier === "local" ? await localModelsDir() : undefined;
// The remote tier's model server runs here too, on the namespace's loopback.
const remote = tier === "remote" ? startRemoteStub() : undefined;
const k = await startKbqa({ ...(models ? { modelsDir: models.dir } : {}), ...(remote ? { flags: remote.flags, env: remote.env } : {}) });
try {
  const result = await runScenario(k);
  const out = {
    tier,
    port: Number(new URL(k.url).port),
    remotePort: remote ? Number(new URL(remote.stub.url).port) : undefined,
    remoteCalls: remote?.stub.calls.map((c) => c.path),
    interfaces: interfaces(),
    result,
  };
  console.log("OFFLINE-RESULT " + JSON.stringify(out));
} catch (e) {
  console.log("OFFLINE-ERROR " + JSON.stringify({ message: String((e as Error)?.stack ?? e), serverStderr: k.stderr().slice(-4000) }));
  process.exitCode = 1;
} finally {
  await k.stop();
  await models?.cleanup();
  remote?.stub.stop();
}
