import { closeSync, openSync, readFileSync, writeSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * The signing key of presigned storage URLs: 32 random bytes, created once in
 * <data>/storage.secret with mode 0600 and reused across restarts, so URLs issued before a
 * restart stay valid until they expire. `wx` makes creation race-free between processes.
 */
export function loadStorageSecret(dataDir: string): Buffer {
  const path = join(dataDir, "storage.secret");
  try {
    const fd = openSync(path, "wx", 0o600);
    try {
      writeSync(fd, randomBytes(32).toString("hex"));
    } finally {
      closeSync(fd);
    }
    chmodSync(path, 0o600); // umask may have narrowed the mode further; never widened it
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const hex = readFileSync(path, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${path} is not a 64-hex-digit secret; delete it to generate a new one`);
  return Buffer.from(hex, "hex");
}
