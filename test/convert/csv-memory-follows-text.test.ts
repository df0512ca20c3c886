import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../helpers/server.ts";

// A CSV's conversion kept every cell as a string of its own, about 60 bytes each: a 39 MB export of
// 20,000 rows by 1,000 columns grew the worker past its 1 GiB limit. It now holds the text and the
// markdown (here 10 MB and 20 MB), not the cells. Measured in a fresh process, where the peak
// resident size is the conversion's alone.

const child = `
const { csvToMarkdown } = await import(${JSON.stringify(join(ROOT, "src/ingest/convert/csv.ts"))});
const peak = () => Number(/VmHWM:\\s+(\\d+)/.exec(require("node:fs").readFileSync("/proc/self/status", "utf8"))[1]) * 1024;
const row = Array.from({ length: 1000 }, (_, i) => String(i % 10)).join(",") + "\\n";
const bytes = new TextEncoder().encode(row.repeat(5000));
Bun.gc(true);
const before = peak();
const md = csvToMarkdown(bytes);
console.log(JSON.stringify({ grew: peak() - before, input: bytes.byteLength, output: md.length }));
`;

test("5,000 rows × 1,000 one-character cells convert in a few times the text, not 60 bytes a cell", () => {
  const p = Bun.spawnSync([process.execPath, "-e", child], { stderr: "pipe" });
  expect(p.stderr.toString()).toBe("");
  const m = JSON.parse(p.stdout.toString());
  expect(m.input).toBe(10_000_000);
  // 5 million cells: the previous conversion grew by about 305 MB, this one by about 100 MB
  expect(m.grew).toBeLessThan(16 * m.input);
});
