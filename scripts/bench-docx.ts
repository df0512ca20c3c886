// Long DOCX conversion: docxToMarkdown now (the body in slices, docx-slices.ts) against one mammoth call
// on the whole file (as before), on the tests' generated DOCX files (test/ingest/long-docx.ts):
//   paragraphs: 200,000 short paragraphs, a heading every 20,000, a 10,000-item list, two footnotes;
//   noted:      100,000 paragraphs with a footnote each.
// Each conversion runs in a child process of its own; peak memory is its VmHWM; both must give the
// same markdown (its SHA-256 is printed). With --http, each file is also uploaded to a server (one
// worker, default limits) and the worker's peak resident memory is read from /proc once it is READY.
// Usage: bun scripts/bench-docx.ts [rounds=1] [--http]
import mammoth from "mammoth";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { docxToMarkdown } from "../src/ingest/convert/docx.ts";
import { htmlToMarkdown } from "../src/ingest/convert/html-to-markdown.ts";
import { DOCX } from "../src/ingest/formats.ts";
import { zipOf } from "../test/convert/fixtures.ts";
import { ingestDocument } from "../test/helpers/ingest.ts";
import { startKbqa } from "../test/helpers/server.ts";
import { longDocx, notedDocxParts } from "../test/ingest/long-docx.ts";

const LIMITS = { maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 10_000 };
const CASES: Record<string, () => Promise<Uint8Array>> = {
  paragraphs: () => longDocx(200_000),
  noted: () => zipOf(notedDocxParts(100_000)),
};
const statusOf = (pid: string | number, key: string) =>
  Number(/\d+/.exec(new RegExp(`^${key}:.*$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))![0])![0]) * 1024;

if (process.argv[2] === "--child") {
  const [impl, name] = [process.argv[3]!, process.argv[4]!];
  const bytes = await CASES[name]!();
  Bun.gc(true);
  const before = statusOf("self", "VmHWM");
  const t0 = performance.now();
  const md = impl === "sliced"
    ? await docxToMarkdown(bytes, LIMITS)
    : htmlToMarkdown((await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }, { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) })).value, LIMITS.maxUncompressedBytes);
  const ms = performance.now() - t0;
  const sha = createHash("sha256").update(md).digest("hex").slice(0, 16);
  console.log(JSON.stringify({ ms, hwm: statusOf("self", "VmHWM"), before, zipped: bytes.byteLength, output: md.length, sha }));
  process.exit(0);
}

const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1);
const mib = (b: number) => (b / 2 ** 20).toFixed(0) + " MiB";
for (let r = 0; r < rounds; r++) {
  for (const name of Object.keys(CASES)) {
    for (const impl of ["whole", "sliced"]) {
      const p = Bun.spawnSync([process.execPath, import.meta.path, "--child", impl, name], { stderr: "pipe" });
      if (p.exitCode !== 0) { console.log(`${name} ${impl}: exit ${p.exitCode} ${p.stderr.toString().slice(-300)}`); continue; }
      const m = JSON.parse(p.stdout.toString());
      console.log(`${name.padEnd(10)} (${(m.zipped / 1e6).toFixed(2)} MB zipped) ${impl.padEnd(6)}: ${(m.ms / 1000).toFixed(2)} s, peak RSS ${mib(m.hwm)} (${mib(m.before)} before converting), markdown ${mib(m.output)} sha256 ${m.sha}`);
    }
  }
}

if (process.argv.includes("--http")) {
  for (const [name, make] of Object.entries(CASES)) {
    // a server of its own for each case: a worker's VmHWM is the peak of its whole life
    const k = await startKbqa({ flags: ["--workers", "1"] });
    try {
      const org = await k.org();
      const c = await org.api("POST", "/v1/corpus/", { name });
      // the worker's peak, read from /proc while it works (an idle worker past half the memory limit is retired at once)
      const peaks = new Map<string, number>();
      let done = false;
      const watch = (async () => {
        while (!done) {
          for (const d of readdirSync("/proc")) {
            if (!/^\d+$/.test(d)) continue;
            try {
              if (Number(readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ")[1]) !== k.proc.pid) continue;
              if (!readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").includes("worker")) continue;
              peaks.set(d, statusOf(d, "VmHWM"));
            } catch {
              // exited while being read
            }
          }
          await Bun.sleep(50);
        }
      })();
      const t0 = performance.now();
      try {
        await ingestDocument(k, org, c.body.id, `${name}.docx`, await make(), DOCX, {}, 300_000);
      } finally {
        done = true;
        await watch;
      }
      const s = (performance.now() - t0) / 1000;
      console.log(`${name.padEnd(10)} over HTTP: READY in ${s.toFixed(1)} s (upload to READY, embedding included), worker peak RSS ${[...peaks.values()].map(mib).join(", ")}`);
    } finally {
      await k.stop();
    }
  }
}
