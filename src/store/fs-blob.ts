import { mkdirSync, openSync, writeSync, fsyncSync, closeSync, renameSync, statSync, rmSync, existsSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import type { BlobStat, BlobStore } from "./blob.ts";
import { tempSuffix } from "./temp-sweep.ts";

const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/**
 * Local-filesystem driver. Writes go to a temporary file in the same directory, are fsynced,
 * then renamed over the final name, so a crash never leaves half an object under a key.
 */
export class FsBlobStore implements BlobStore {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
    mkdirSync(this.root, { recursive: true });
  }

  /** Refuses keys with "..", absolute paths, odd characters, or anything resolving outside the root. */
  filePath(key: string): string {
    if (!KEY_RE.test(key) || key.split("/").some((p) => p === "." || p === "..")) throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
    const p = resolve(join(this.root, key));
    if (!p.startsWith(this.root + sep)) throw new Error(`blob key escapes the store: ${JSON.stringify(key)}`);
    return p;
  }

  /** A unique temporary path beside the final one (same filesystem, so rename is atomic); creates its directory. */
  tempPath(key: string): string {
    mkdirSync(dirname(this.filePath(key)), { recursive: true });
    return this.tempName(key);
  }

  /** tempPath without creating the directory (for writers that create it themselves). */
  tempName(key: string): string {
    return `${this.filePath(key)}${tempSuffix()}`;
  }

  /** Makes a fully written temporary file the object; fsyncs it first unless the writer already did. */
  commitTemp(tmp: string, key: string, synced = false): void {
    if (!synced) {
      const fd = openSync(tmp, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    renameSync(tmp, this.filePath(key));
  }

  async put(key: string, data: Uint8Array | string): Promise<BlobStat> {
    const tmp = this.tempPath(key);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    try {
      const fd = openSync(tmp, "w");
      try {
        let off = 0;
        while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.filePath(key));
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
    return { size: bytes.length };
  }

  async get(key: string): Promise<Uint8Array | null> {
    const p = this.filePath(key);
    if (!existsSync(p)) return null;
    return new Uint8Array(await Bun.file(p).arrayBuffer());
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      return { size: statSync(this.filePath(key)).size };
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    rmSync(this.filePath(key), { force: true });
  }
}
