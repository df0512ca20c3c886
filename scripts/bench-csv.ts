// CSV conversion benchmark: csvToMarkdown now (two passes, no string kept per cell) versus the previous
// version (scripts/lib/csv-previous.ts, every cell parsed into rows first), in the same run, each conversion
// in a child process of its own so peak memory is the conversion's. Cases: 20,000 rows × 1,000 short cells
// (39 MB) and one 50 MB line of short cells. Peak memory is the child's VmHWM (peak resident set) and
// RssAnon at the end. Usage: bun scripts/bench-csv.ts [rounds]
import { csvToMarkdown } from "../src/ingest/convert/csv.ts";
import { csvToMarkdownPrevious } from "./lib/csv-previous.ts";

const ROUNDS = Number(process.argv[2] ?? 1);
const CASES = {
  "20000x1000": () => {
    const row = Array.from({ length: 1000 }, (_, i) => String(i % 10)).join(",") + "\n";
    return row.repeat(20_000);
  },
  "one-line-50MB": () => "ab,".repeat(Math.floor(50e6 / 3)) + "ab\n",
};
type Case = keyof typeof CASES;

const status = (key: string) => Number(/\d+/.exec(new RegExp(`^${key}:.*$`, "m").exec(require("node:fs").readFileSync("/proc/self/status", "utf8"))![0])![0]) * 1024;

if (process.argv[2] === "--child") {
  const [impl, name] = [process.argv[3]!, process.argv[4] as Case];
  const bytes = new TextEncoder().encode(CASES[name]());
  Bun.gc(true);
  const before = status("VmHWM");
  const t0 = performance.now();
  const md = (impl === "new" ? csvToMarkdown : csvToMarkdownPrevious)(bytes);
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ ms, hwm: status("VmHWM"), before, anon: status("RssAnon"), input: bytes.byteLength, output: md.length }));
  process.exit(0);
}

const mib = (b: number) => (b / 2 ** 20).toFixed(0) + " MiB";
for (const name of Object.keys(CASES) as Case[]) {
  for (let r = 0; r < ROUNDS; r++) {
    for (const impl of ["previous", "new"]) {
      const p = Bun.spawnSync([process.execPath, import.meta.path, "--child", impl, name], { stderr: "pipe" });
      if (p.exitCode !== 0) { console.log(`${name} ${impl}: exit ${p.exitCode} ${p.stderr.toString().slice(-300)}`); continue; }
      const m = JSON.parse(p.stdout.toString());
      console.log(`${name.padEnd(14)} ${impl.padEnd(8)} input ${mib(m.input)}, output ${mib(m.output)}: ${(m.ms / 1000).toFixed(2)} s, peak RSS ${mib(m.hwm)} (${mib(m.before)} before converting), RssAnon after ${mib(m.anon)}`);
    }
  }
}
