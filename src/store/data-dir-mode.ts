/**
 * The data directory holds every organization's documents and conversations. Commands create it
 * private (umask 077, cli.ts), but one that already existed (made by hand, by a volume, by an
 * older kbqa) keeps its own mode, and kbqa does not change it: the operator may share it on
 * purpose (a backup account's group). It says so at start instead, once, with the way out.
 */
import { statSync } from "node:fs";
import type { Logger } from "../context.ts";

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
