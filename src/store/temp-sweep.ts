import { opendir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../context.ts";

/**
 * Every temporary file a blob writer makes is named `<final path>.tmp-<pid>-<uuid>`: the pid says
 * which process wrote it, so what a dead process left behind can be told from a write in flight.
 */
export const tempSuffix = () => `.tmp-${process.pid}-${crypto.randomUUID()}`;
const TEMP_RE = /\.tmp-(\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the temporary files of writers that died: a server killed during an upload left up to
 * --max-upload-bytes beside the object for good (six killed uploads, 176 MB), and on a small disk
 * that alone refused later uploads with 507. Runs in the background at start, one directory at a
 * time; a file whose writer is still alive (this server, or an operator command) is left alone.
 */
export async function sweepTemps(root: string, log: Logger, stopped: () => boolean): Promise<{ files: number; bytes: number }> {
  const t0 = performance.now();
  let files = 0;
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await opendir(dir);
    } catch {
      return; // removed meanwhile (a deleted document's previews)
    }
    for await (const e of entries) {
      if (stopped()) return;
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        await walk(path);
        continue;
      }
      const pid = TEMP_RE.exec(e.name)?.[1];
      if (!e.isFile() || pid === undefined || alive(Number(pid))) continue;
      try {
        const size = (await stat(path)).size;
        await rm(path, { force: true });
        files++;
        bytes += size;
      } catch (err) {
        log.error("could not remove a leftover temporary file", { path, error: String(err) });
      }
    }
  };
  await walk(root);
  if (files) log.info("leftover temporary files removed", { files, bytes, ms: Math.round(performance.now() - t0) });
  return { files, bytes };
}
