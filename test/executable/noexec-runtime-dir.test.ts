// Hardened hosts mount /tmp (sometimes /home) noexec. The executable unpacked its native libraries
// into ~/.cache/kbqa/runtime there all the same, and `kbqa serve` died with "lancedb.node: failed
// to map segment from shared object" and a stack (`selftest` also dumped minified node-llama-cpp
// source). Now it unpacks into the first candidate where programs may run, and when there is none
// it says so in one line naming the folders and the way out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CAN_MOUNT } from "../helpers/small-disk.ts";
import { freshExecutable } from "../../scripts/build/exe.ts";

const NATIVE = resolve(import.meta.dir, "../../src/runtime/native.ts");
let base: string;
let noexec: string;

beforeAll(() => {
  if (!CAN_MOUNT) return;
  base = mkdtempSync(join(tmpdir(), "kbqa-noexec-"));
  noexec = join(base, "noexec");
  mkdirSync(noexec);
  const m = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "noexec,size=8m", "tmpfs", noexec]);
  if (m.exitCode !== 0) throw new Error(`mount: ${m.stderr.toString()}`);
  for (const d of ["home", "tmp"]) mkdirSync(join(noexec, d), { mode: 0o700 });
  mkdirSync(join(base, "tmp"), { mode: 0o700 });
});

afterAll(() => {
  if (!base) return;
  Bun.spawnSync(["umount", noexec]);
  rmSync(base, { recursive: true, force: true });
});

/** nativeRoot() in a process of its own (the choice is made once per process), or the error's name and message. */
async function rootFor(env: Record<string, string>): Promise<string> {
  const script = `import { nativeRoot } from ${JSON.stringify(NATIVE)};\ntry { console.log(nativeRoot()); } catch (e) { console.log(e.name + ": " + e.message); }`;
  const p = Bun.spawn([process.execPath, "-e", script], { env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (err.trim()) throw new Error(err);
  return out.trim();
}

const uid = process.getuid?.() ?? 0;
const refusal = (home: string, tmp: string) =>
  `cannot load the native libraries: ${join(home, ".cache/kbqa/runtime")} and ${join(tmp, `kbqa-runtime-${uid}`)} are on a file system mounted noexec; ` +
  "set TMPDIR (or HOME) to a folder on a file system where programs may run";

describe.skipIf(!CAN_MOUNT)("the folder the native libraries are unpacked into (a real noexec tmpfs)", () => {
  test("a home on a noexec mount: the temp directory is used instead", async () => {
    const tmp = join(base, "tmp");
    expect(await rootFor({ HOME: join(noexec, "home"), TMPDIR: tmp })).toBe(join(tmp, `kbqa-runtime-${uid}`));
  });

  test("home and temp directory both noexec: NativeDirUnusable naming both and the way out", async () => {
    const home = join(noexec, "home");
    const tmp = join(noexec, "tmp");
    expect(await rootFor({ HOME: home, TMPDIR: tmp })).toBe(`NativeDirUnusable: ${refusal(home, tmp)}`);
  });

  test("the executable: `serve` says so in one line and exits 1", async () => {
    const exe = await freshExecutable();
    const work = join(base, "work");
    mkdirSync(work);
    copyFileSync(exe.path, join(work, "kbqa"));
    const home = join(noexec, "home");
    const tmp = join(noexec, "tmp");
    const p = Bun.spawn(["./kbqa", "serve", "--port", "0"], { cwd: work, env: { HOME: home, TMPDIR: tmp }, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect({ code, out, err }).toEqual({ code: 1, out: "", err: `kbqa serve: ${refusal(home, tmp)}\n` });
  }, 300_000);
});
