// Locating, (re)building and isolating dist/kbqa for test/executable and scripts/measure-binary.ts.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const EXE = join(ROOT, "dist", "kbqa");

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((f) => newestMtime(join(path, f))));
}

/**
 * dist/kbqa (or `outfile`, built with the build script's `flags`), rebuilt when missing or older
 * than the sources, the build scripts or the lockfile.
 */
export async function freshExecutable(outfile = EXE, flags: string[] = []): Promise<{ path: string; built: boolean; buildMs?: number }> {
  const inputs = ["src", "scripts/build.ts", "scripts/build", "package.json", "bun.lock"].map((p) => join(ROOT, p)).filter(existsSync);
  if (existsSync(outfile) && statSync(outfile).mtimeMs > Math.max(...inputs.map(newestMtime))) return { path: outfile, built: false };
  const t = performance.now();
  const args = outfile === EXE ? flags : ["--outfile", outfile, ...flags];
  const p = Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts"), ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`bun run build failed (${code}):\n${err}`);
  return { path: outfile, built: true, buildMs: Math.round(performance.now() - t) };
}

/** A new empty folder holding only a copy of the executable (and dist/lib, were there one). */
export function bareCopy(exe = EXE): string {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-bare-"));
  copyFileSync(exe, join(dir, "kbqa"));
  return dir;
}

/** Whether `unshare -n` works here and `ip` can bring the namespace's loopback up. */
export function canCutNetwork(): boolean {
  try {
    const ok = Bun.spawnSync(["unshare", "-n", "sh", "-c", "ip link set lo up"], { stderr: "ignore", stdout: "ignore" });
    return ok.exitCode === 0;
  } catch {
    return false;
  }
}

/** argv running `argv` with the network cut off (loopback only), or unchanged when that is impossible. */
export function withoutNetwork(argv: string[], cut: boolean): string[] {
  return cut ? ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", ...argv] : argv;
}
