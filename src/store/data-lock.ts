/**
 * One server per data directory. Several would each claim ingestion jobs and write LanceDB
 * tables and blobs at the same time, and an upload claim (storage/grants.ts) is kept in the
 * memory of the server that took it. The lock is an open SQLite write transaction on
 * `<data>/server.lock`: SQLite's own file locks, so the kernel releases it when the holder dies,
 * even by kill -9, and the next start needs no stale-lock cleanup. Operator commands (`kbqa org`,
 * `kbqa key`) do not take it: they write through SQLite's own locking beside a running server.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export class DataDirInUse extends Error {}

const SQLITE_BUSY = 5;

/** Takes the data directory's lock or throws DataDirInUse; returns its release. Keep the result referenced: a collected handle closes its file, and the lock with it. */
export function lockDataDir(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, "server.lock"), { create: true });
  try {
    db.run("PRAGMA busy_timeout = 0");
    db.run("CREATE TABLE IF NOT EXISTS held (since INTEGER)"); // an empty file cannot be locked
    // Locks without writing (no journal file), so a server can still start on a full disk.
    db.run("BEGIN EXCLUSIVE");
  } catch (e) {
    db.close();
    if (((e as { errno?: number }).errno ?? 0) % 256 === SQLITE_BUSY) {
      throw new DataDirInUse(`another kbqa server is using the data directory ${dataDir}; stop it first, or give this one its own --data`);
    }
    throw e;
  }
  return {
    release() {
      try {
        db.run("ROLLBACK");
      } finally {
        db.close();
      }
    },
  };
}
