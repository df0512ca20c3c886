// A data directory that existed before kbqa first ran kept its mode (kbqa creates its own 0700):
// the repository's data/ is 0755 after a clone, so every tenant's data was readable by any account
// of the machine without a word. A directory with nothing in it yet is now made private; one in
// use keeps its mode and the start names it; one holding something else is never touched.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, readListeningLine, ROOT, tempDir } from "../helpers/server.ts";

const WARNING = "the data directory is open to other accounts";
const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

/** Serves on `data` until listening, stops it, and returns the lines its whole stderr logged about the mode. */
async function startWarnings(data: string, models: string): Promise<{ msg: string; dataDir?: string; mode?: string }[]> {
  const proc = Bun.spawn(["bun", CLI, "serve", "--port", "0", "--data", data, "--models", models], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const err = new Response(proc.stderr).text();
  try {
    await readListeningLine(proc, () => "");
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await proc.exited).toBe(0);
  const lines = (await err).split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  return lines.filter((l) => String(l.msg).startsWith(WARNING));
}

test("a data directory holding only a README (the repository's data/) is made private at the first start, silently", async () => {
  using t = tempDir();
  const data = join(t.path, "data");
  mkdirSync(data);
  writeFileSync(join(data, "README.md"), "runtime folder\n");
  chmodSync(data, 0o755);
  expect(await startWarnings(data, join(t.path, "models"))).toEqual([]);
  expect(mode(data)).toBe("700");
});

test("a data directory in use and open to others keeps its mode, and each start names it", async () => {
  using t = tempDir();
  const data = join(t.path, "data");
  const models = join(t.path, "models");
  expect(await startWarnings(data, models)).toEqual([]); // created by kbqa: 0700
  chmodSync(data, 0o750);
  const warned = await startWarnings(data, models);
  expect(warned.map(({ dataDir, mode }) => ({ dataDir, mode }))).toEqual([{ dataDir: data, mode: "0750" }]);
  expect(warned[0]!.msg).toContain("chmod 700");
  expect(mode(data)).toBe("750");
});

test("a directory holding something else is never changed, only named", async () => {
  using t = tempDir();
  const data = join(t.path, "home");
  mkdirSync(data);
  writeFileSync(join(data, "notes.txt"), "someone's file\n");
  chmodSync(data, 0o755);
  expect((await startWarnings(data, join(t.path, "models"))).map((l) => l.mode)).toEqual(["0755"]);
  expect(mode(data)).toBe("755");
});
