// Size, start-up and memory of the single executable, against the source checkout in the same run.
//   bun scripts/measure-binary.ts [--runs 5] [--docs 100]
//   bun scripts/measure-binary.ts --only source       (no build)
// - size of dist/kbqa (rebuilt first when stale)
// - start → "listening" line: median of N starts with an empty models folder; plus the very first
//   start with an empty natives cache (HOME is a fresh folder: it unpacks ~280 MB of libraries once)
// - resident memory (VmRSS, split into anonymous and file-backed) of the server, and of its
//   worker processes, idle after start, right after ingesting D small markdown documents (workers
//   still alive), idle once the workers retired (--worker-idle-ms, default) and the idle
//   maintenance ran, and idle 3 s and 8 s after answering questions; "total" is server + workers
// - then questions: the first one, the median of 5 warm ones and the RSS right after them (what an
//   active server holds), and the median of 3 asked each after an idle period (the maintenance
//   of src/runtime/idle.ts dropped the code pages, so they pay their minor faults)
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { bareCopy, freshExecutable, ROOT } from "./build/exe.ts";

const argv = process.argv.slice(2);
const num = (name: string, def: number) => Number(argv[argv.indexOf(`--${name}`) + 1] ?? def) || def;
const RUNS = num("runs", 5);
const DOCS = num("docs", 100);
// Memory is read after this much idle time, the same for both variants: the server's idle
// maintenance runs after 5 s without requests or ingestion (checked every second).
const IDLE_MS = 8000;

const statusKb = (pid: number, field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
const rssKb = (pid: number) => statusKb(pid, "VmRSS");
const memOf = (pid: number) => ({ rss: rssKb(pid), anon: statusKb(pid, "RssAnon"), file: statusKb(pid, "RssFile") });
type Mem = ReturnType<typeof memOf>;
const memText = (m: Mem) => `${mb(m.rss)} (anon ${mb(m.anon)}, file ${mb(m.file)})`;
const children = (pid: number): number[] =>
  readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => {
    try {
      return Number(readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ")[1]) === pid;
    } catch {
      return false;
    }
  });
/** Worker processes of the server: how many and their summed RSS. */
const workersOf = (pid: number) => {
  const pids = children(pid);
  return { n: pids.length, rss: pids.reduce((sum, p) => sum + rssKb(p), 0) };
};
type Workers = ReturnType<typeof workersOf>;
const withWorkers = (m: Mem, w: Workers) => `server ${memText(m)} + ${w.n} workers ${mb(w.rss)} = total ${mb(m.rss + w.rss)}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

interface Variant { name: string; argv: (work: string) => string[]; env: (tmp: string) => Record<string, string> }

async function start(v: Variant, work: string, tmp: string) {
  const t0 = performance.now();
  const p = Bun.spawn([...v.argv(work), "serve", "--port", "0", "--data", join(work, "data"), "--models", join(work, "models")], {
    cwd: work, env: v.env(tmp), stdout: "pipe", stderr: "pipe",
  });
  const reader = p.stdout.getReader();
  let out = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${v.name} exited before listening: ${await new Response(p.stderr).text()}`);
    out += new TextDecoder().decode(value);
    const m = /kbqa listening on (\S+)\n/.exec(out);
    if (m) return { url: m[1]!, ms: performance.now() - t0, proc: p };
  }
}

async function cli(v: Variant, work: string, tmp: string, args: string[]) {
  const p = Bun.spawn([...v.argv(work), ...args, "--data", join(work, "data"), "--models", join(work, "models")], { cwd: work, env: v.env(tmp), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${args.join(" ")}: ${err}`);
  return JSON.parse(out);
}

async function ingest(v: Variant, work: string, tmp: string, url: string, n: number) {
  const { id: orgId } = await cli(v, work, tmp, ["org", "create", "measure"]);
  const keys = await generateKeyPair("RS256", { modulusLength: 2048 });
  writeFileSync(join(work, "k.pem"), await exportSPKI(keys.publicKey));
  const { kid } = await cli(v, work, tmp, ["key", "add", "--org", orgId, "--public-key", join(work, "k.pem")]);
  const jwt = await new SignJWT({}).setProtectedHeader({ alg: "RS256", kid }).setSubject("m").setIssuedAt().setExpirationTime("1h").sign(keys.privateKey);
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(url + path, { method, headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<any>;
  };
  const corpus = await api("POST", "/v1/corpus/", { name: "measure" });
  const session = await api("POST", "/v1/session/", { corpusIds: [corpus.id] });
  const ask = async () => {
    const t = performance.now();
    const r = await api("POST", "/v1/post/", { sessionId: session.id, body: "How many crates of rope does depot 7 store?" });
    if (!/49/.test(r.answer.body)) throw new Error(`unexpected answer: ${r.answer.body}`);
    return performance.now() - t;
  };
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const init = await api("POST", "/v1/doc/init", { corpusId: corpus.id, filename: `note-${i}.md`, contentType: "text/markdown" });
    const up = String(init.uploadUrl).startsWith("http") ? init.uploadUrl : url + init.uploadUrl;
    const text = `# Note ${i}\n\nThe depot number ${i} stores ${i * 7} crates of ${["pears", "bolts", "maps", "rope"][i % 4]}.\n\n${"Filler sentence about logistics. ".repeat(20)}\n`;
    const put = await fetch(up, { method: "PUT", headers: { "content-type": "text/markdown" }, body: text });
    if (put.status !== 200) throw new Error(`upload ${i}: ${put.status}`);
    await api("POST", `/v1/doc/${init.document.id}/commit`);
    ids.push(init.document.id);
  }
  const t = performance.now();
  for (const id of ids) {
    for (;;) {
      const d = await api("GET", `/v1/doc/${id}`);
      if (d.status === "READY") break;
      if (d.status === "FAILED") throw new Error(`document FAILED: ${d.statusMsg}`);
      if (performance.now() - t > 600_000) throw new Error("ingestion did not finish in 10 minutes");
      await Bun.sleep(100);
    }
  }
  return ask;
}

async function measure(v: Variant) {
  const work = v.name === "executable" ? bareCopy() : mkdtempSync(join(tmpdir(), "kbqa-measure-"));
  const tmp = join(work, "tmp");
  mkdirSync(tmp);
  mkdirSync(join(work, "models"));
  try {
    const starts: number[] = [];
    let first = 0;
    for (let i = 0; i <= RUNS; i++) {
      const s = await start(v, work, tmp);
      if (i === 0) first = s.ms;
      else starts.push(s.ms);
      s.proc.kill("SIGTERM");
      await s.proc.exited;
    }
    // The copy and the natives the first start unpacked are still dirty in the page cache for a
    // while; the idle maintenance leaves dirty pages alone. A deployed binary's pages are clean.
    Bun.spawnSync(["sync"]);
    const s = await start(v, work, tmp);
    await Bun.sleep(IDLE_MS);
    const idle = memOf(s.proc.pid);
    const idleWorkers = workersOf(s.proc.pid);
    const ask = await ingest(v, work, tmp, s.url, DOCS);
    const busyWorkers = workersOf(s.proc.pid);
    // Idle workers exit after --worker-idle-ms; then the server's own idle maintenance runs.
    const t0 = performance.now();
    while (children(s.proc.pid).length && performance.now() - t0 < 120_000) await Bun.sleep(250);
    const retiredMs = performance.now() - t0;
    await Bun.sleep(IDLE_MS);
    const after = memOf(s.proc.pid);
    const afterWorkers = workersOf(s.proc.pid);
    // Questions: the first ever (cold code paths), warm ones, then one after another idle period.
    const firstAsk = await ask();
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push(await ask());
    const active = memOf(s.proc.pid);
    // A few seconds after the questions, before the idle maintenance (5 s) has necessarily run.
    await Bun.sleep(3000);
    const afterAsk = memOf(s.proc.pid);
    const afterAskWorkers = workersOf(s.proc.pid);
    // ...and once the idle maintenance has run (it gives back the code pages the questions used).
    await Bun.sleep(IDLE_MS - 3000);
    const afterAskIdle = memOf(s.proc.pid);
    const afterAskIdleWorkers = workersOf(s.proc.pid);
    const afterIdle: number[] = [];
    for (let i = 0; i < 3; i++) {
      await Bun.sleep(IDLE_MS);
      afterIdle.push(await ask());
    }
    s.proc.kill("SIGTERM");
    await s.proc.exited;
    return {
      first, median: median(starts), starts, idle, idleWorkers, busyWorkers, retiredMs, after, afterWorkers,
      firstAsk, warmAsk: median(warm), afterIdleAsk: median(afterIdle), active, afterAsk, afterAskWorkers, afterAskIdle, afterAskIdleWorkers,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// --only executable|source measures one variant (the source one needs no build).
const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : undefined;
const allVariants: Variant[] = [
  { name: "executable", argv: (w) => [join(w, "kbqa")], env: (tmp) => ({ TMPDIR: tmp, HOME: tmp }) },
  { name: "source (bun src/cli.ts)", argv: () => [process.execPath, join(ROOT, "src", "cli.ts")], env: (tmp) => ({ PATH: process.env.PATH ?? "", TMPDIR: tmp }) },
];
const variants = allVariants.filter((v) => !only || v.name.startsWith(only));
const load = `load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`;
if (variants.some((v) => v.name === "executable")) {
  const exe = await freshExecutable();
  const size = statSync(exe.path).size;
  console.log(`dist/kbqa: ${(size / 1e6).toFixed(1)} MB${exe.built ? ` (built in ${(exe.buildMs! / 1000).toFixed(1)} s)` : ""}; ${load}`);
} else console.log(load);
for (const v of variants) {
  const r = await measure(v);
  console.log(
    `${v.name.padEnd(24)} listening: median ${r.median.toFixed(0)} ms of ${RUNS} (${r.starts.map((x) => x.toFixed(0)).join(", ")}), first start ${r.first.toFixed(0)} ms` +
      `\n${"".padEnd(24)} RSS idle after start: ${withWorkers(r.idle, r.idleWorkers)}` +
      `\n${"".padEnd(24)} right after ${DOCS} docs: ${r.busyWorkers.n} workers ${mb(r.busyWorkers.rss)}; they retired ${(r.retiredMs / 1000).toFixed(1)} s later` +
      `\n${"".padEnd(24)} RSS idle after ${DOCS} docs, workers retired: ${withWorkers(r.after, r.afterWorkers)}` +
      `\n${"".padEnd(24)} question: first ${r.firstAsk.toFixed(0)} ms, warm median ${r.warmAsk.toFixed(0)} ms, after an idle period median ${r.afterIdleAsk.toFixed(0)} ms of 3; RSS right after questions ${memText(r.active)}` +
      `\n${"".padEnd(24)} RSS idle 3 s after questions: ${withWorkers(r.afterAsk, r.afterAskWorkers)}` +
      `\n${"".padEnd(24)} RSS idle ${IDLE_MS / 1000} s after questions: ${withWorkers(r.afterAskIdle, r.afterAskIdleWorkers)}`,
  );
}
