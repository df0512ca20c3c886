/**
 * Recognises the failures that come from the data volume itself rather than from a request or a
 * document: the disk is full, or the data directory became read-only. They surface from four
 * libraries in four shapes (Node's fs: `code` ENOSPC/EROFS; bun:sqlite: `errno` SQLITE_FULL /
 * SQLITE_READONLY; LanceDB: Rust I/O text "No space left on device (os error 28)"; a worker:
 * only the message text), so the test looks at codes first and at the message last, along the
 * `cause` chain. The HTTP layer answers them with 507/503 instead of "unexpected error", and
 * ingestion waits for space instead of failing documents that did nothing wrong.
 */
import { statfsSync } from "node:fs";

export type StorageFailure = "full" | "readonly";

const SQLITE_READONLY = 8;
const SQLITE_FULL = 13;

const FULL_TEXT = /no space left on device|os error 28\b|database or disk is full|disk quota exceeded|os error 122\b/i;
const READONLY_TEXT = /read-only file system|os error 30\b|readonly database/i;

export function storageFailure(e: unknown): StorageFailure | null {
  for (let x = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT") return "full";
    if (code === "EROFS") return "readonly";
    const errno = (x as { errno?: unknown; name?: unknown }).name === "SQLiteError" ? (x as { errno?: number }).errno : undefined;
    if (typeof errno === "number" && (errno & 0xff) === SQLITE_FULL) return "full";
    if (typeof errno === "number" && (errno & 0xff) === SQLITE_READONLY) return "readonly";
    const message = x instanceof Error ? x.message : typeof x === "string" ? x : "";
    if (FULL_TEXT.test(message)) return "full";
    if (READONLY_TEXT.test(message)) return "readonly";
  }
  return null;
}

/**
 * storageFailure, or, for an error that only says "I/O error" (SQLite cannot create its
 * shared-memory index on a full disk, so a server cannot even open its database there), what
 * the data volume's free space says.
 */
export function diagnoseStorage(e: unknown, dataDir: string): StorageFailure | null {
  const known = storageFailure(e);
  if (known || !/\bI\/O error\b|\bEIO\b/i.test(String((e as Error)?.message ?? e))) return known;
  const free = freeBytes(dataDir);
  return free !== null && free < 64 * 1024 ? "full" : null;
}

/** Space an unprivileged writer can still use on the volume holding `dir`; null when it cannot be told. */
export function freeBytes(dir: string): number | null {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return null;
  }
}

/** What a client or an operator is told; the same words in the API, the storage route, the logs and the CLI. */
export const STORAGE_FAILURE_MESSAGE: Record<StorageFailure, string> = {
  full: "The server's data disk is full: the request was not completed. Retry once space is freed on the data volume",
  readonly: "The server's data directory is read-only: the request was not completed. Retry once it is writable again",
};
