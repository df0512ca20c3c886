/**
 * A real small disk for a server's data directory: a tmpfs mounted for one test (root only, as
 * on this project's machines and CI), filled to the last byte on demand and freed again. The
 * server under test sees genuine ENOSPC from the kernel in every library (fs, SQLite, LanceDB).
 */
import { Database } from "bun:sqlite";
import { closeSync, fstatSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ok = (cmd: string[]) => Bun.spawnSync(cmd, { stdout: "ignore", stderr: "ignore" }).exitCode === 0;

/** Whether this process may mount a tmpfs (root on Linux). Probed once, by mounting one. */
export const CAN_MOUNT = (() => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), "kbqa-mount-probe-"));
  const mounted = ok(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]);
  if (mounted) ok(["umount", dir]);
  rmSync(dir, { recursive: true, force: true });
  return mounted;
})();

export interface SmallDisk extends AsyncDisposable {
  /** The data directory to give the server (inside the mount). */
  dataDir: string;
  /** Writes a filler file until the kernel answers ENOSPC, then gives back `leaveBytes` (default: not one byte is left). */
  fill(leaveBytes?: number): void;
  /** Removes the filler. */
  free(): void;
  /**
   * Truncates SQLite's write-ahead log, as a checkpoint does in a long-running server: the next
   * write must grow the file again. Without it a reused log absorbs writes on a full disk.
   */
  truncateWal(): void;
  remountReadOnly(readOnly: boolean): void;
}

export function smallDisk(megabytes = 64): SmallDisk {
  const mount = mkdtempSync(join(tmpdir(), "kbqa-test-disk-"));
  if (!ok(["mount", "-t", "tmpfs", "-o", `size=${megabytes}m`, "tmpfs", mount])) throw new Error("mount -t tmpfs failed (root needed)");
  const dataDir = join(mount, "data");
  mkdirSync(dataDir);
  const filler = join(mount, "filler");
  return {
    dataDir,
    fill(leaveBytes = 0) {
      const fd = openSync(filler, "a");
      try {
        for (const size of [1 << 20, 4096]) {
          const block = new Uint8Array(size);
          try {
            for (;;) writeSync(fd, block);
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
          }
        }
        if (leaveBytes) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leaveBytes));
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    truncateWal() {
      const db = new Database(join(dataDir, "kbqa.sqlite"));
      try {
        db.run("PRAGMA busy_timeout = 5000");
        db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
      } finally {
        db.close();
      }
    },
    remountReadOnly(readOnly) {
      if (!ok(["mount", "-o", `remount,${readOnly ? "ro" : "rw"}`, mount])) throw new Error("remount failed");
    },
    async [Symbol.asyncDispose]() {
      ok(["umount", "-l", mount]);
      rmSync(mount, { recursive: true, force: true });
    },
  };
}
