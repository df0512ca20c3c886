// What embedding the source map costs the executable: size, start to a first answer of /pub/ping,
// `kbqa --help` (a process start, as each ingestion worker pays), the server's memory right after
// start and once idle (its idle maintenance runs after 5 s without requests), and the
// stack a worker logs for a damaged DOCX, and its memory before and after, for executables built
// with and without --sourcemap in the same run.
//   bun scripts/measure-sourcemap.ts [--runs 7] [--no-build]
// The two variants' starts alternate (which goes first swaps every round), each against a data
// folder of its own, with one shared natives cache unpacked before the timed starts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./build/exe.ts";
import { docx } from "../test/convert/fixtures.ts";
import type { WorkerReply, WorkerRequest } from "../src/ingest/worker.ts";
import { DOCX } from "../src/ingest/formats.ts";

const argv = process.argv.slice(2);
const RUNS = Number(argv[argv.indexOf("--runs") + 1] ?? 7) || 7;
const VARIANTS = [
  { name: "with the source map (--sourcemap)", exe: join(ROOT, "dist", "kbqa-sourcemap"), flags: ["--sourcemap"] },
  { name: "without (the default build)", exe: join(ROOT, "dist", "kbqa-no-sourcemap"), flags: [] as string[] },
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const home = mkdtempSync(join(tmpdir(), "kbqa-sm-home-"));
const env = { HOME: home, TMPDIR: home, PATH: process.env.PATH ?? "" };

if (!argv.includes("--no-build")) {
  for (const v of VARIANTS) {
    const p = Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", v.exe, "--no-verify", ...v.flags], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
    if ((await p.exited) !== 0) throw new Error(`building ${v.exe} failed`);
  }
}

const IDLE_MS = 8000;
const mem = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
  return { rss: kb("VmRSS") / 1024, anon: kb("RssAnon") / 1024, file: kb("RssFile") / 1024 };
};
type Mem = ReturnType<typeof mem>;

/** Spawn → `listening` line → first 200 from /pub/ping; the server's memory then and once idle; a clean stop. */
async function startOnce(exe: string): Promise<{ listening: number; ping: number; started: Mem; idle: Mem }> {
  const data = mkdtempSync(join(tmpdir(), "kbqa-sm-data-"));
  const t0 = performance.now();
  const p = Bun.spawn([exe, "serve", "--port", "0", "--data", data, "--models", join(data, "models")], { cwd: data, env, stdout: "pipe", stderr: "pipe" });
  try {
    const reader = p.stdout.getReader();
    let out = "";
    let url: string | undefined;
    while (!url) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${exe} exited before listening: ${await new Response(p.stderr).text()}`);
      out += new TextDecoder().decode(value);
      url = /kbqa listening on (\S+)\n/.exec(out)?.[1];
    }
    const listening = performance.now() - t0;
    const deadline = Date.now() + 30_000;
    while ((await fetch(`${url}/pub/ping`).catch(() => null))?.status !== 200) if (Date.now() > deadline) throw new Error("no ping");
    const ping = performance.now() - t0;
    const started = mem(p.pid);
    await Bun.sleep(IDLE_MS);
    return { listening, ping, started, idle: mem(p.pid) };
  } finally {
    p.kill("SIGTERM");
    await p.exited;
    rmSync(data, { recursive: true, force: true });
  }
}

async function helpMs(exe: string): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn([exe, "--help"], { env, stdout: "ignore", stderr: "ignore" });
  if ((await p.exited) !== 0) throw new Error(`${exe} --help failed`);
  return performance.now() - t0;
}

/**
 * The first lines of the stack a worker logs when mammoth cannot read a DOCX (malformed
 * document.xml), and the worker's memory once ready and a second after that answer.
 */
async function loggedStack(exe: string): Promise<{ stack: string; ready: Mem; after: Mem }> {
  const bytes = await docx({ "word/document.xml": "<w:document><w:body><w:p>" });
  let onReady!: () => void, onAnswer!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  const answered = new Promise<void>((r) => (onAnswer = r));
  const p = Bun.spawn([exe, "worker"], {
    env, serialization: "advanced", stdout: "ignore", stderr: "pipe",
    ipc(m: WorkerReply) {
      const types = (m.type === "batch" ? m.messages : [m]).map((x) => x.type);
      if (types.includes("ready")) onReady();
      if (types.includes("error") || types.includes("done")) onAnswer();
    },
  });
  await ready;
  await Bun.sleep(1000);
  const before = mem(p.pid);
  p.send({ type: "parse", id: 1, bytes, contentType: DOCX, chunk: {} } satisfies WorkerRequest);
  await answered;
  await Bun.sleep(1000);
  const after = mem(p.pid);
  p.kill();
  const err = await new Response(p.stderr).text();
  const line = err.split("\n").find((l) => l.includes("mammoth could not read a DOCX"));
  const stack = line ? String(JSON.parse(line).error).split("\n").filter((l) => l.trim().startsWith("at ")).slice(0, 3).join("\n") : `(no log line)\n${err.slice(0, 500)}`;
  return { stack, ready: before, after };
}

const results = VARIANTS.map(() => ({ listening: [] as number[], ping: [] as number[], started: [] as Mem[], idle: [] as Mem[], help: [] as number[] }));
for (const v of VARIANTS) await startOnce(v.exe); // unpacks the natives into the shared cache
for (let round = 0; round < RUNS; round++) {
  for (const i of round % 2 ? [1, 0] : [0, 1]) {
    const s = await startOnce(VARIANTS[i]!.exe);
    results[i]!.listening.push(s.listening);
    results[i]!.ping.push(s.ping);
    results[i]!.started.push(s.started);
    results[i]!.idle.push(s.idle);
    results[i]!.help.push(await helpMs(VARIANTS[i]!.exe));
  }
}
console.log(`load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}; ${RUNS} starts each, alternating`);
for (const [i, v] of VARIANTS.entries()) {
  const r = results[i]!;
  const ms = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  console.log(`${v.name}: ${(statSync(v.exe).size / 1e6).toFixed(1)} MB`);
  const rss = (ms: Mem[]) => (["rss", "anon", "file"] as const).map((k) => `${k} ${median(ms.map((m) => m[k])).toFixed(0)}`).join(", ");
  console.log(`  listening ${ms(r.listening)}, first /pub/ping 200 ${ms(r.ping)}, --help ${ms(r.help)}`);
  console.log(`  memory (MB, medians): right after start ${rss(r.started)}; idle ${IDLE_MS / 1000} s later ${rss(r.idle)}`);
  const logged = await loggedStack(v.exe);
  console.log(`  a worker (MB): ready ${rss([logged.ready])}; after logging an error ${rss([logged.after])}`);
  console.log(`  its logged stack:\n${logged.stack.replace(/^/gm, "    ")}`);
}
rmSync(home, { recursive: true, force: true });
