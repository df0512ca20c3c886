// A build with --sourcemap carries its source map: the stack a worker of the executable logs names
// the file and line of the source (node_modules/mammoth/lib/xml/xmldom.js:18:19), where the default
// build names a column on a line of minified code (/$bunfs/root/cli.js:701:1292). The worker is the
// executable run as `kbqa worker`, spoken to over IPC as the server's pool does, and given a DOCX
// whose document.xml is not well-formed, which it logs with mammoth's stack (convert/docx.ts).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { freshExecutable, ROOT } from "../../scripts/build/exe.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import type { WorkerReply, WorkerRequest } from "../../src/ingest/worker.ts";
import { docx } from "../convert/fixtures.ts";

test("the executable built with --sourcemap logs a stack naming source files and lines", async () => {
  const exe = await freshExecutable(join(ROOT, "dist", "kbqa-sourcemap"), ["--sourcemap", "--no-verify"]);
  if (exe.built) console.error(`built ${exe.path} in ${exe.buildMs} ms`);
  const home = mkdtempSync(join(tmpdir(), "kbqa-sourcemap-"));
  try {
    let answered!: (m: WorkerReply) => void;
    const answer = new Promise<WorkerReply>((r) => (answered = r));
    const ends = (m: WorkerReply) => (m.type === "batch" ? m.messages : [m]).some((x) => x.type === "error" || x.type === "done");
    const worker = Bun.spawn([exe.path, "worker"], {
      env: { HOME: home, TMPDIR: home }, serialization: "advanced", stdout: "ignore", stderr: "pipe",
      ipc: (m: WorkerReply) => { if (ends(m)) answered(m); },
    });
    const bytes = await docx({ "word/document.xml": "<w:document><w:body><w:p>" });
    worker.send({ type: "parse", id: 1, bytes, contentType: DOCX, chunk: {} } satisfies WorkerRequest);
    const reply = await Promise.race([answer, worker.exited.then((code) => { throw new Error(`worker exited ${code} without answering`); })]);
    worker.kill();
    const log = await new Response(worker.stderr).text();
    expect(JSON.stringify(reply)).toContain("not well-formed XML");
    const line = log.split("\n").find((l) => l.includes("mammoth could not read a DOCX"));
    expect(line).toBeDefined();
    const frames = String(JSON.parse(line!).error).split("\n").filter((l) => l.trim().startsWith("at "));
    expect(frames[0]).toMatch(/^\s+at parseFromString \(node_modules\/mammoth\/lib\/xml\/xmldom\.js:\d+:\d+\)$/);
    expect(frames.join("\n")).not.toContain("$bunfs");
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}, 600_000);
