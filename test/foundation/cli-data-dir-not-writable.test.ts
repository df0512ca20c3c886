// A data directory kbqa cannot write: on a read-only volume, or another account's (a server set up
// as root, then run as its service user). SQLite says only "unable to open database file", and the
// commands printed that with a stack; they now say which file cannot be written and why, in one line.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { CLI, ROOT, runCli, tempDir } from "../helpers/server.ts";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";

const NOBODY = 65534;
const AS_ROOT = process.platform === "linux" && process.getuid?.() === 0 && Bun.which("setpriv") !== null;

/** The CLI from the checkout, run as uid/gid 65534 with a home of its own (Bun writes a cache there). */
async function asNobody(args: string[], home: string) {
  const p = Bun.spawn(["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, HOME: home, TMPDIR: home, BUN_INSTALL_CACHE_DIR: join(home, "cache") },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

/** Under `base`: a data directory root created (0700, root's) and a home anyone may write. */
async function rootsDataDir(base: string): Promise<{ home: string; data: string }> {
  chmodSync(base, 0o755);
  const home = join(base, "home");
  mkdirSync(home, { mode: 0o777 });
  chmodSync(home, 0o777);
  const data = join(base, "data");
  expect((await runCli(["org", "create", "Root's", "--data", data])).code).toBe(0);
  return { home, data };
}

describe.skipIf(!AS_ROOT)("another account's data directory (setpriv to uid 65534)", () => {
  test("serve, org create and org list name the directory, the owner and the user, without a stack", async () => {
    using d = tempDir();
    const { home, data } = await rootsDataDir(d.path);
    const line = `--data: cannot open the database in ${data}: the directory cannot be written (permission denied; it belongs to uid 0 and kbqa runs as uid ${NOBODY})\n`;
    for (const cmd of [["serve", "--port", "0"], ["org", "create", "Mine"], ["org", "list"]]) {
      const name = cmd[0] === "serve" ? "serve" : cmd.slice(0, 2).join(" ");
      expect(await asNobody([...cmd, "--data", data], home)).toEqual({ code: 1, stdout: "", stderr: `kbqa ${name}: ${line}` });
    }
  }, 60_000);

  test("a directory it may write holding a database file root made: that file is named", async () => {
    using d = tempDir();
    const { home, data } = await rootsDataDir(d.path);
    chmodSync(data, 0o777);
    const r = await asNobody(["serve", "--port", "0", "--data", data], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^kbqa serve: --data: cannot open the database in ${data}: (server\\.lock|kbqa\\.sqlite) cannot be written \\(permission denied; it belongs to uid 0 and kbqa runs as uid ${NOBODY}\\)\\n$`));
  }, 60_000);
});

describe.skipIf(!CAN_MOUNT)("an empty data directory on a read-only volume (a real tmpfs)", () => {
  test("serve and org create say the volume is read-only, in one line", async () => {
    await using disk = smallDisk(4);
    disk.remountReadOnly(true);
    try {
      for (const cmd of [["serve", "--port", "0"], ["org", "create", "X"]]) {
        const name = cmd[0] === "serve" ? "serve" : "org create";
        expect(await runCli([...cmd, "--data", disk.dataDir])).toEqual({
          code: 1,
          stdout: "",
          stderr: `kbqa ${name}: --data: cannot open the database in ${disk.dataDir}: the directory cannot be written (read-only file system)\n`,
        });
      }
    } finally {
      disk.remountReadOnly(false);
    }
  }, 60_000);
});
