// An error nothing handles used to end the server on the spot (Bun's default), LanceDB and the
// workers still running: a soak server died with SIGABRT. It now logs the error with its stack,
// drains as on SIGTERM and exits 70, leaving a data directory the next start opens as usual.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, ROOT, readListeningLine, startKbqa } from "../helpers/server.ts";

const PRELOAD = join(import.meta.dir, "../helpers/bug-on-signal.ts");

async function serveWithBug(dataDir: string) {
  const models = join(dataDir, "models-empty");
  mkdirSync(models, { recursive: true });
  const proc = Bun.spawn(["bun", "--preload", PRELOAD, CLI, "serve", "--port", "0", "--data", dataDir, "--models", models], {
    cwd: ROOT, stdout: "pipe", stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const url = await readListeningLine(proc, () => "(stderr read at exit)");
  return { proc, url, stderr };
}

for (const [signal, kind, message] of [
  ["SIGUSR2", "unhandled rejection", "injected rejection"],
  ["SIGUSR1", "uncaught exception", "injected throw"],
] as const) {
  test(`an ${kind} is logged with its stack, the server drains and exits 70, and the data opens again`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "kbqa-bug-"));
    try {
      const s = await serveWithBug(dataDir);
      expect((await fetch(`${s.url}/pub/ping`)).status).toBe(200);
      s.proc.kill(signal);
      expect(await s.proc.exited).toBe(70);
      const lines = (await s.stderr).split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
      const bug = lines.find((l) => l.level === "error" && l.error === message);
      expect(bug?.msg).toBe(`${kind}: a bug in kbqa; the server stops so that it can be restarted clean`);
      expect(bug?.stack).toContain("bug-on-signal.ts");
      // Drained like a SIGTERM: the data lock is released and the next start serves.
      await using again = await startKbqa({ dataDir });
      expect((await again.request("GET", "/pub/ping")).status).toBe(200);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
}
