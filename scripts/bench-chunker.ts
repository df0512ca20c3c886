// Chunking throughput on ~10 MB of generated paged markdown. Baseline, measured in the same run:
// splitting the markdown into lines plus cutting it into fixed 10000-character slices, the least
// work any chunker must do. Run: bun scripts/bench-chunker.ts
import { markdownToElements } from "../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig } from "../src/ingest/chunker/index.ts";

function generate(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let p = 1; size < bytes; p++) {
    const block =
      `<!-- page ${p} -->\n\n## Section ${p}\n\n` +
      "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n".repeat(20) +
      "\n- first item\n- second item\n  continued\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n\n";
    parts.push(block);
    size += block.length;
  }
  return parts.join("");
}

function time<T>(fn: () => T, runs = 5): { ms: number; out: T } {
  let best = Infinity;
  let out!: T;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    out = fn();
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, out };
}

const md = generate(10_000_000);
const mb = md.length / 1e6;
const baseline = time(() => {
  const lines = md.split("\n").length;
  const slices: string[] = [];
  for (let i = 0; i < md.length; i += 10000) slices.push(md.slice(i, i + 10000));
  return lines + slices.length;
});
const els = time(() => markdownToElements(md));
const configs: [string, unknown][] = [
  ["platform default", undefined],
  ["by_title max 1000 overlap 100 overlap_all", { max_characters: 1000, overlap: 100, overlap_all: true }],
  ["basic max 1000", { strategy: "basic", max_characters: 1000 }],
];
console.log(`input ${mb.toFixed(1)} MB, ${els.out.length} elements`);
console.log(`baseline (line split + fixed slices): ${baseline.ms.toFixed(0)} ms`);
console.log(`markdownToElements: ${els.ms.toFixed(0)} ms (${(mb / (els.ms / 1000)).toFixed(1)} MB/s)`);
for (const [name, raw] of configs) {
  const cfg = parseChunkConfig(raw);
  const r = time(() => chunkElements(els.out, cfg));
  console.log(`chunkElements [${name}]: ${r.ms.toFixed(0)} ms, ${r.out.length} chunks (${(mb / (r.ms / 1000)).toFixed(1)} MB/s)`);
}
const one = "word ".repeat(2_000_000);
const single = time(() => chunkElements(markdownToElements(one), parseChunkConfig({ overlap: 200 })), 3);
console.log(`10 MB single line, overlap 200: ${single.ms.toFixed(0)} ms, ${single.out.length} chunks`);
