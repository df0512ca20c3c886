// Runs the tier scenario from inside whatever network namespace it was started in (the offline
// test starts it under `unshare -n`, loopback up), so client and server share the namespace's
// loopback. Usage: bun test/tiers/offline-runner.ts builtin|local
// Prints one line `OFFLINE-RESULT <json>`: the scenario result, the server's port and the
// network interfaces the namespace has.
import { readFileSync } from "node:fs";
import { startKbqa } from "../helpers/server.ts";
import { localModelsDir } from "./local-models.ts";
import { runScenario } from "./scenario.ts";

/** Interfaces of this process's network namespace (/sys/class/net shows the mount's, not ours). */
const interfaces = () => readFileSync("/proc/self/net/dev", "utf8").split("\n").slice(2).map((l) => l.split(":")[0]!.trim()).filter(Boolean).sort();

const tier = process.argv[2];
if (tier !== "builtin" && tier !== "local") throw new Error(`usage: offline-runner.ts builtin|local (got ${tier})`);

const models = tier === "local" ? await localModelsDir() : undefined;
const k = await startKbqa(models ? { modelsDir: models.dir } : {});
try {
  const result = await runScenario(k);
  const out = { tier, port: Number(new URL(k.url).port), interfaces: interfaces(), result };
  console.log("OFFLINE-RESULT " + JSON.stringify(out));
} catch (e) {
  console.log("OFFLINE-ERROR " + JSON.stringify({ message: String((e as Error)?.stack ?? e), serverStderr: k.stderr().slice(-4000) }));
  process.exitCode = 1;
} finally {
  await k.stop();
  await models?.cleanup();
}
