/**
 * The data directory holds every organization's documents and conversations. Commands create it
 * private (umask 077, cli.ts). One that already existed is made private too while kbqa has put
 * nothing in it and nobody else has either (the repository's `data/`, holding only its README,
 * made 0755 by git with the usual umask). One in use keeps its own mode, and kbqa does not change
 * it: the operator may share it on purpose (a backup account's group); `serve` says so at start
 * instead, once, with the way out. A directory holding anything else (`--data` given a home
 * folder by mistake) is never touched.
 */
import { chmodSync, readdirSync, statSync } from "node:fs";
import type { Logger } from "../context.ts";

/** What a directory kbqa is about to initialize may already hold: the repository's note, a placeholder, its own lock. */
const UNTOUCHED = new Set(["README.md", ".gitkeep", "server.lock"]);

/** The directory's permission bits when they grant anything to group or others, else undefined. */
export function sharedMode(dir: string): number | undefined {
  const mode = statSync(dir).mode & 0o777;
  return mode & 0o077 ? mode : undefined;
}

export function warnIfShared(dir: string, log: Logger): void {
  const mode = sharedMode(dir);
  if (mode === undefined) return;
  log.info("the data directory is open to other accounts of this machine, which could read every organization's data: chmod 700 it unless that is meant", {
    dataDir: dir,
    mode: mode.toString(8).padStart(4, "0"),
  });
}

/** Makes `dir` 0700 when it is open to others and holds nothing yet (see above); called before kbqa writes its database. */
export function privateIfUnused(dir: string): void {
  if (sharedMode(dir) === undefined) return;
  if (!readdirSync(dir).every((name) => UNTOUCHED.has(name))) return;
  try {
    chmodSync(dir, 0o700);
  } catch {
    // owned by another account (a mounted volume): serve names its mode at start
  }
}
