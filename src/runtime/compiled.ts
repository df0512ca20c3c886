// Tells the source checkout and the `bun build --compile` executable apart, and builds the argv
// that re-enters this same program (the ingestion worker runs as a child process of it).
import { dirname, resolve } from "node:path";

/** Modules of a compiled executable live in Bun's embedded filesystem, "/$bunfs/" (B:/~BUN/ on Windows). */
export function isCompiled(mainPath: string = Bun.main): boolean {
  return mainPath.startsWith("/$bunfs/") || mainPath.includes("~BUN");
}

// src/runtime/ → src/cli.ts; only meaningful when running from source.
const CLI_SOURCE = resolve(import.meta.dir, "..", "cli.ts");

/**
 * argv that runs `kbqa <args…>` in a child process: the executable itself when compiled
 * (it carries every sub-command), `bun src/cli.ts` otherwise. process.execPath is the real file
 * in both cases (the executable, or the bun binary).
 */
export function selfCommand(...args: string[]): string[] {
  return isCompiled() ? [process.execPath, ...args] : [process.execPath, CLI_SOURCE, ...args];
}

/** argv of the ingestion worker sub-command (`kbqa worker`). */
export function workerCommand(...extra: string[]): string[] {
  return selfCommand("worker", ...extra);
}

/** Folder holding the running executable (compiled) or the source checkout root. */
export function programDir(): string {
  return isCompiled() ? dirname(process.execPath) : resolve(import.meta.dir, "..", "..");
}
