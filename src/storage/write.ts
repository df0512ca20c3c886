import { closeSync, fsync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import type { FsBlobStore } from "../store/fs-blob.ts";

const fsyncAsync = promisify(fsync);

export class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The upload exceeds the maximum size of ${limit} bytes`);
  }
}

/**
 * Bodies declaring at most this many bytes are received whole and written with one write();
 * larger or undeclared (chunked) ones stream to the file chunk by chunk, so memory per upload
 * stays bounded whatever the configured maximum.
 */
export const WHOLE_BODY_MAX = 16 * 1024 * 1024;

/** Milliseconds per phase, for Server-Timing (md5 runs while the fsyncs are in flight). */
export interface WriteTiming {
  recv: number;
  write: number;
  md5: number;
  fsync: number;
  rename: number;
  dirsync: number;
}

export interface WriteResult {
  size: number;
  /** MD5 of the bytes, hex: what S3 returns as the ETag of a single-part PUT. */
  etag: string;
  timing: WriteTiming;
}

/**
 * Stores a request body as the object `key`, atomically and durably before it returns:
 * temporary file beside the final one, fsync, rename, then fsync of the directory so the new
 * name survives a power cut too (a 200 means stored, as with S3). Directories created for the
 * key are made durable in their parents, concurrently with the file's fsync. Any failure (too
 * large, client gone, disk error) deletes the temporary file: no partial object ever exists
 * under the key. Only a failing directory fsync after the rename leaves the complete object in
 * place, as a crash at that point would; a retry of the URL overwrites it. The caller has
 * already refused a declared length above `maxBytes`.
 *
 * The ETag stays the MD5 of the bytes, as S3 gives for a single-part PUT, so a client can
 * check it against `md5sum`. It costs ~2 ms of CPU per MiB; it runs while the fsyncs wait on
 * the disk, which hides it on an idle 2-core machine but not on a saturated one.
 */
export async function writeUpload(blobs: FsBlobStore, key: string, request: Request, maxBytes: number): Promise<WriteResult> {
  const finalPath = blobs.filePath(key);
  const dir = dirname(finalPath);
  const created = mkdirSync(dir, { recursive: true });
  const tmp = blobs.tempPath(key);
  const timing: WriteTiming = { recv: 0, write: 0, md5: 0, fsync: 0, rename: 0, dirsync: 0 };
  const md5 = new Bun.CryptoHasher("md5");
  let fd = -1;
  let size = 0;
  try {
    const t0 = performance.now();
    const declared = request.headers.get("content-length");
    if (declared !== null && !request.headers.has("transfer-encoding") && Number(declared) <= WHOLE_BODY_MAX) {
      const bytes = await request.bytes();
      timing.recv = performance.now() - t0;
      size = bytes.byteLength;
      if (size > maxBytes) throw new TooLarge(maxBytes);
      const w0 = performance.now();
      fd = openSync(tmp, "w", 0o600);
      writeAll(fd, bytes);
      timing.write = performance.now() - w0;
      const synced = syncAll(fd, created, dir, timing);
      const h0 = performance.now();
      md5.update(bytes); // CPU work overlapping the fsyncs, which run on the thread pool
      timing.md5 = performance.now() - h0;
      await synced;
    } else {
      fd = openSync(tmp, "w", 0o600);
      if (request.body) {
        // A chunked body has no length to trust: count every chunk.
        for await (const chunk of request.body) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new TooLarge(maxBytes);
          writeAll(fd, chunk);
          md5.update(chunk);
        }
      }
      timing.recv = performance.now() - t0;
      await syncAll(fd, created, dir, timing);
    }
    closeSync(fd);
    fd = -1;
    const r0 = performance.now();
    blobs.commitTemp(tmp, key, true);
    timing.rename = performance.now() - r0;
    await fsyncPath(dir); // the rename itself
    timing.dirsync = performance.now() - r0 - timing.rename;
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  return { size, etag: md5.digest("hex"), timing };
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off);
}

/**
 * The file's data, plus the entries of directories mkdir just created (their parents, up to
 * the first one that already existed): concurrent, so the journal usually commits them once.
 */
async function syncAll(fd: number, created: string | undefined, dir: string, timing: WriteTiming): Promise<void> {
  const dirs: string[] = [];
  if (created) {
    for (let d = dir; d !== created; d = dirname(d)) dirs.push(dirname(d));
    dirs.push(dirname(created));
  }
  const s0 = performance.now();
  await Promise.all([fsyncAsync(fd), ...dirs.map(fsyncPath)]);
  timing.fsync = performance.now() - s0;
}

async function fsyncPath(path: string): Promise<void> {
  const fd = openSync(path, "r");
  try {
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
}
