/**
 * Commit of large Office files: four concurrent commits of ~90 MB DOCX uploads against a real server,
 * with the server's resident memory before and its peak after (VmHWM), and the slowest /pub/ping
 * answered meanwhile. Commit judges an Office file by its zip directory, so memory should not move.
 *
 * Usage: bun scripts/bench-commit-office.ts  (ROOT=<another checkout> to measure that one's server)
 */
import JSZip from "jszip";
const ROOT = process.env.ROOT ?? new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const { startKbqa } = await import(`${ROOT}/test/helpers/server.ts`);
const { docxParts } = await import(`${ROOT}/test/convert/fixtures.ts`);
const { benchCorpus } = await import(`${ROOT}/scripts/lib/upload-refs.ts`);
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const k = await startKbqa({ flags: ["--max-upload-bytes", String(200 << 20)] });
try {
  const { auth, corpusId } = await benchCorpus(k, "m");
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const z = new JSZip();
    for (const [n, d] of Object.entries(docxParts())) z.file(n, d as string);
    z.file("word/media/big.bin", new Uint8Array(90 << 20).fill(i + 1), { compression: "STORE" });
    const bytes = (await z.generateAsync({ type: "uint8array" })) as Uint8Array<ArrayBuffer>;
    const ir = await (await fetch(`${k.url}/v1/doc/init`, { method: "POST", headers: auth, body: JSON.stringify({ corpusId, filename: `f${i}.docx`, contentType: DOCX, chunk: { strategy: "bench-skip-ingestion" } }) })).json() as any;
    const pr = await fetch(ir.uploadUrl, { method: "PUT", body: bytes, headers: { "content-type": DOCX } });
    if (pr.status !== 200) throw new Error("put " + pr.status);
    ids.push(ir.document.id);
  }
  Bun.gc(true);
  const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(require("fs").readFileSync(`/proc/${k.proc.pid}/status`, "utf8"))![1]) / 1024;
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(require("fs").readFileSync(`/proc/${k.proc.pid}/status`, "utf8"))![1]) / 1024;
  const before = rss(), hwm0 = hwm();
  let pingMax = 0, done = false;
  const pinger = (async () => { while (!done) { const t = performance.now(); await fetch(`${k.url}/pub/ping`); pingMax = Math.max(pingMax, performance.now() - t); await Bun.sleep(2); } })();
  const t0 = performance.now();
  const st = await Promise.all(ids.map((id) => fetch(`${k.url}/v1/doc/${id}/commit`, { method: "POST", headers: { authorization: auth.authorization } }).then((r) => r.status)));
  const ms = performance.now() - t0;
  done = true; await pinger;
  console.log(`commits ${st} in ${ms.toFixed(0)} ms; RSS before ${before.toFixed(0)} MiB, peak ${hwm().toFixed(0)} MiB (peak before ${hwm0.toFixed(0)}); ping max ${pingMax.toFixed(1)} ms`);
} finally { await k.stop(); }
