// Time and peak memory of reading every token of 6 million "x<br>" and 1 million "<p class=a>y</p>"
// (46 MB of HTML, 15 million tokens): the previous tokenizer (scripts/lib/tokenizer-previous.ts, an
// object per token), tokenize() as it is now (built on the Scanner, still an object per token), and
// the Scanner read in place as the HTML and XLSX converters do. Each in a child process of its own;
// peak is the child's VmHWM, "before" is it once the source is made. With --attributes the source is one
// XML tag of 15 million attributes (30 MB), the Scanner's hostile case for keeping attributes as ranges.
// Usage: bun scripts/bench-tokenizer.ts [runs] [--attributes]
import { readFileSync } from "node:fs";
import { Scanner, START, tokenize } from "../src/ingest/convert/html-tokenizer.ts";
import { tokenize as tokenizePrevious } from "./lib/tokenizer-previous.ts";

const hwm = () => Number(/^VmHWM:\s*(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
const WAYS = ["previous", "tokenize", "scanner"] as const;

if (process.argv[2] === "--child") {
  const way = process.argv[3]!;
  const attributes = process.argv[4] === "--attributes";
  // replace() makes the source one flat string before the peak is read
  const src = (attributes ? "<c " + "b ".repeat(15_000_000) + "class=a>" : "x<br>".repeat(6_000_000) + "<p class=a>y</p>".repeat(1_000_000)).replace(/^/, "");
  Bun.gc(true);
  const before = hwm();
  const t0 = performance.now();
  let n = 0;
  let names = 0;
  if (way === "scanner") {
    for (const s = new Scanner(src, attributes); s.next(); n++) if (s.kind === START) names += s.name.length + (s.attr("class") ?? "").length;
  } else {
    for (const t of (way === "previous" ? tokenizePrevious : tokenize)(src, { xml: attributes })) {
      n++;
      if (t.type === "start") names += t.name.length + (t.attrs.class ?? "").length;
    }
  }
  console.log(JSON.stringify({ s: (performance.now() - t0) / 1000, peak: hwm(), before, n, names }));
  process.exit(0);
}

const args = process.argv.slice(2);
const attributes = args.includes("--attributes");
const runs = Number(args.find((a) => !a.startsWith("--")) ?? 3);
for (let r = 0; r < runs; r++) {
  for (const way of WAYS) {
    const p = Bun.spawnSync([process.execPath, import.meta.path, "--child", way, ...(attributes ? ["--attributes"] : [])]);
    const m = JSON.parse(p.stdout.toString());
    console.log(`${way.padEnd(9)} ${m.n} tokens: ${m.s.toFixed(2).padStart(5)} s, peak ${m.peak.toFixed(0).padStart(4)} MiB (${m.before.toFixed(0)} MiB before)`);
  }
}
