// Seeded crash consistency: two organizations run a random mixed workload over HTTP (corpora,
// uploads of markdown, text and PDF, commits, replacements, patches, deletes, questions, usage
// reads; test/helpers/crash-ops.ts, crash-reads.ts). The server is SIGKILLed (its workers die with
// it) right after a seeded number of acknowledged operations, of any kind or of one kind (a
// commit, a delete…, its background work pending), while other requests are in flight, now and
// then again while it recovers, and restarted on the same data directory. After each restart the
// invariants of test/helpers/crash-check*.ts must hold: nothing acknowledged is lost, nothing stays
// PROCESSING, no torn object, downloads, chunks, answers and usage agree with the live documents,
// no organization sees another's data. CRASH_SEED replays a run's choices (the interleaving of
// the actors varies); CRASH_CYCLES sets the number of kills (default 6), CRASH_WORKERS the
// server's --workers (default 2).
import { expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startKbqa, type Kbqa } from "../helpers/server.ts";
import { rng } from "../helpers/seeded.ts";
import { cut, mix, SEED, type OrgModel } from "../helpers/crash-model.ts";
import { actor } from "../helpers/crash-workload.ts";
import type { Env } from "../helpers/crash-http.ts";
import { check } from "../helpers/crash-check.ts";

const CYCLES = Number(process.env.CRASH_CYCLES ?? 6);
const ACTORS = 3;
const KINDS = ["commit", "corpus delete", "replace", "delete", "PUT"];
const FLAGS = ["--workers", process.env.CRASH_WORKERS ?? "2"];

test(`crash consistency (CRASH_SEED=${SEED})`, async () => {
  console.error(`crash-consistency: CRASH_SEED=${SEED} CRASH_CYCLES=${CYCLES}`);
  const r = rng(mix(SEED));
  let k: Kbqa = await startKbqa({ keepData: true, flags: FLAGS });
  const dataDir = k.dataDir;
  const logs: string[] = [];
  let failed = true;
  try {
    const orgs: OrgModel[] = [];
    for (const name of ["A", "B"]) {
      const org = await k.org(name);
      const token = await org.jwt({}, { expSeconds: 3600 });
      orgs.push({ name, orgId: org.orgId, token, corpora: [], docs: [], sessions: [], lostInits: 0, lostCorpora: 0 });
    }
    const env: Env = { base: k.url, stopped: false, failures: [], orgs, serial: 0, ops: 0, killAfter: 0, kill: () => {}, seen: {}, serverLogs: () => [...logs, k.stderr()].join("\n") };
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      env.ops = 0;
      // Half the time right after the n-th acknowledged write of one kind, while its background work is pending.
      env.killOn = r() < 0.5 ? KINDS[Math.floor(r() * KINDS.length)] : undefined;
      env.killAfter = env.killOn ? 1 + Math.floor(r() * (env.killOn === "corpus delete" ? 2 : 6)) : 20 + Math.floor(r() * 200);
      env.stopped = false;
      const killed = new Promise<void>((resolve) => {
        env.kill = () => {
          env.stopped = true;
          k.proc.kill("SIGKILL"); // at once, while the other actors' requests are in flight
          resolve();
        };
      });
      const actors = orgs.flatMap((o, oi) => Array.from({ length: ACTORS }, (_, i) => actor(env, o, oi * ACTORS + i, rng(Math.floor(r() * 2 ** 32)))));
      await Promise.race([killed, Bun.sleep(10_000)]); // the n-th may be slow to come: no more than 10 s of workload
      if (!env.stopped) env.kill();
      await k.stop("SIGKILL");
      logs.push(k.stderr());
      await Promise.all(actors);
      const cuts = orgs.flatMap((o) => o.docs.filter((d) => d.inflight).map((d) => d.inflight));
      cut(orgs);
      k = await startKbqa({ dataDir, flags: FLAGS });
      // Now and then the restarted server is killed again while it recovers (jobs, drops, sweeps).
      if (r() < 0.3) {
        await Bun.sleep(Math.floor(r() * 300));
        await k.stop("SIGKILL");
        logs.push(k.stderr());
        k = await startKbqa({ dataDir, flags: FLAGS });
      }
      env.base = k.url;
      await check(env, orgs, dataDir);
      const docs = orgs.flatMap((o) => o.docs);
      console.error(`cycle ${cycle}: killed after ${env.killAfter} ${env.killOn ?? "operation"}s; ${docs.filter((d) => d.state !== "deleted").length} live documents of ${docs.length}; cut: ${cuts.join(" ") || "-"}`);
      if (env.failures.length) {
        // The servers' logs, oldest first, for the report.
        const file = join(tmpdir(), `crash-${SEED}-${Date.now()}.log`);
        writeFileSync(file, [...logs, k.stderr()].join("\n--- SIGKILL, restart ---\n"));
        console.error(`crash-consistency: server logs in ${file}`);
      }
      expect({ cycle, failures: env.failures }).toEqual({ cycle, failures: [] });
    }
    console.error(JSON.stringify(env.seen));
    failed = false;
  } catch (e) {
    // A request that failed outright (a server that died while checked) leaves no failures list:
    // the logs are what says why.
    const file = join(tmpdir(), `crash-${SEED}-${Date.now()}.log`);
    writeFileSync(file, [...logs, k.stderr()].join("\n--- SIGKILL, restart ---\n") + `\n--- exit: ${k.proc.exitCode} ${k.proc.signalCode ?? ""}\n`);
    console.error(`crash-consistency: server logs in ${file}`);
    throw e;
  } finally {
    await k.stop();
    // CRASH_KEEP=1 keeps a failed run's data directory, to read its SQLite and LanceDB afterwards.
    if (failed && process.env.CRASH_KEEP) console.error(`crash-consistency: data directory kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}, 240_000); // 18–77 s measured; the margin is for a loaded CI machine
