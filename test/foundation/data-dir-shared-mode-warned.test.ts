// A data directory that existed before kbqa first ran keeps its mode (kbqa creates its own 0700):
// made by hand or by a volume with the usual umask it is 0755, and every tenant's data is then
// readable by any account of the machine without a word. The start now says so, naming the mode.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { CLI, readListeningLine, ROOT, tempDir } from "../helpers/server.ts";

const WARNING = "the data directory is open to other accounts";

/** Serves on `data` until listening, stops it, and returns its whole stderr as parsed log lines. */
async function startLog(data: string, models: string): Promise<{ msg: string; dataDir?: string; mode?: string }[]> {
  const proc = Bun.spawn(["bun", CLI, "serve", "--port", "0", "--data", data, "--models", models], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const err = new Response(proc.stderr).text();
  try {
    await readListeningLine(proc, () => "");
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await proc.exited).toBe(0);
  return (await err).split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
}

test("serve on an existing data directory open to others logs it once, with its mode, and leaves the mode", async () => {
  using t = tempDir();
  const data = join(t.path, "data");
  mkdirSync(data);
  chmodSync(data, 0o750);
  const warned = (await startLog(data, join(t.path, "models"))).filter((l) => l.msg.startsWith(WARNING));
  expect(warned.map(({ dataDir, mode }) => ({ dataDir, mode }))).toEqual([{ dataDir: data, mode: "0750" }]);
  expect(warned[0]!.msg).toContain("chmod 700");
  expect(statSync(data).mode & 0o777).toBe(0o750);
});

test("serve on a private data directory, existing or created, says nothing about it", async () => {
  using t = tempDir();
  const existing = join(t.path, "existing");
  mkdirSync(existing);
  chmodSync(existing, 0o700);
  for (const data of [existing, join(t.path, "created")]) {
    const log = await startLog(data, join(t.path, "models"));
    expect(log.filter((l) => l.msg.startsWith(WARNING))).toEqual([]);
  }
});
