/**
 * The SERVER process's memory while it ingests one large text document (the workers are other
 * processes and are not counted). Per round: a fresh real server (`kbqa serve`, test/helpers/server.ts)
 * on a temp data directory is left until its RSS settles (the idle baseline), then one generated
 * markdown document of the given size goes through init → PUT → commit over HTTP and the document
 * status is polled until READY. The server PID's VmRSS is read from /proc every 50 ms throughout;
 * reported: idle RSS, peak RSS above that idle RSS (same server, same run), VmHWM, time from commit to READY.
 * With ROOTS=a,b the rounds alternate between checkouts (each started from its own src/cli.ts).
 *
 *   bun scripts/bench-server-memory.ts [MB ...]   (default 10 50; ROUNDS=<n>, default 2)
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const SIZES_MB = sizes.length ? sizes : [10, 50];
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const ROOTS = (process.env.ROOTS ?? resolve(import.meta.dir, "..")).split(",").map((r) => resolve(r));
const MiB = 2 ** 20;

/** Deterministic prose in paragraphs under headings: words vary so chunks differ and the text statistics have work. */
function document(bytes: number): string {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const words = Array.from({ length: 5000 }, (_, i) => {
    let w = "";
    const n = 3 + (i % 8);
    for (let j = 0; j < n; j++) w += String.fromCharCode(97 + Math.floor(rnd() * 26));
    return w;
  });
  const parts: string[] = [];
  let size = 0;
  let section = 0;
  while (size < bytes) {
    let p = section % 12 === 0 ? `## Section ${section}\n\n` : "";
    const n = 60 + Math.floor(rnd() * 80);
    for (let i = 0; i < n; i++) p += words[Math.floor(rnd() * rnd() * words.length)] + (i % 15 === 14 ? ". " : " ");
    p += "\n\n";
    parts.push(p);
    size += p.length;
    section++;
  }
  return parts.join("").slice(0, bytes);
}

const status = (pid: number) => {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
};

async function round(root: string, mb: number, text: string) {
  const { startKbqa, waitFor } = await import(`${root}/test/helpers/server.ts`);
  const { corpus, initOk, put } = await import(`${root}/test/documents/helpers.ts`);
  await using k = await startKbqa();
  const o = await k.org();
  const c = await corpus(o);
  const pid = k.proc.pid;
  // Idle baseline: the server after start and one request, once its RSS stops moving (or 5 s).
  let idle = status(pid).rss;
  for (let i = 0; i < 50; i++) {
    await Bun.sleep(100);
    const r = status(pid).rss;
    if (Math.abs(r - idle) < 256 * 1024 && i >= 10) break;
    idle = r;
  }
  const hwm0 = status(pid).hwm;
  let peak = idle;
  const timer = setInterval(() => { try { peak = Math.max(peak, status(pid).rss); } catch {} }, 50);
  const i = await initOk(o, { corpusId: c, filename: "big.md", contentType: "text/markdown" });
  const p = await put(i.uploadUrl, text, "text/markdown");
  if (p.status !== 200) throw new Error(`put: ${p.status} ${p.text}`);
  const afterPut = status(pid).rss;
  const t0 = performance.now();
  const cm = await o.api("POST", `/v1/doc/${i.document.id}/commit`);
  if (cm.status >= 300) throw new Error(`commit: ${cm.status} ${JSON.stringify(cm.body)}`);
  const doc = await waitFor(async () => {
    const s = (await o.api("GET", `/v1/doc/${i.document.id}/status`)).body;
    // TRACE=1: the stage the server reports beside its RSS, to see which step holds the memory.
    if (process.env.TRACE) console.log(`  ${((performance.now() - t0) / 1000).toFixed(1)} s  rss ${(status(pid).rss / MiB).toFixed(0)} MiB  ${JSON.stringify(s.stage ?? s.progress ?? s.status)}`);
    return s.status === "READY" || s.status === "FAILED" ? s : undefined;
  }, "document settled", 600_000, process.env.TRACE ? 500 : 100);
  const ready = performance.now() - t0;
  await Bun.sleep(200);
  clearInterval(timer);
  const end = status(pid);
  peak = Math.max(peak, end.rss);
  if (doc.status !== "READY") throw new Error(`document ${doc.status}: ${doc.statusMsg}`);
  const f = (b: number) => (b / MiB).toFixed(0).padStart(5);
  console.log(
    `${root.padEnd(28)} ${String(mb).padStart(4)} MB  idle ${f(idle)}  after PUT ${f(afterPut)}  peak ${f(peak)}  peak-idle ${f(peak - idle)}  VmHWM ${f(end.hwm)} (was ${f(hwm0)})  end ${f(end.rss)}  READY ${(ready / 1000).toFixed(1).padStart(5)} s  (MiB)`,
  );
}

for (const mb of SIZES_MB) {
  const text = document(mb * 10 ** 6);
  for (let r = 0; r < ROUNDS; r++) for (const root of ROOTS) await round(root, mb, text);
}
