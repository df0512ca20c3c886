import { ptr } from "bun:ffi";
import { closeSync, constants, fsync, ftruncateSync, mkdirSync, openSync, rmSync, write, writeSync } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import type { FsBlobStore } from "../store/fs-blob.ts";
import { Flusher } from "./flusher.ts";

const fsyncAsync = promisify(fsync);
/** A positional write on the thread pool, resolving to the bytes written. */
const writeAsync = (fd: number, b: Uint8Array, off: number, len: number, pos: number) =>
  new Promise<number>((resolve, reject) => write(fd, b, off, len, pos, (e, n) => (e ? reject(e) : resolve(n))));

export class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The upload exceeds the maximum size of ${limit} bytes`);
  }
}

/**
 * Up to this many bytes of a body are kept in memory: a declared body this small is read whole,
 * and a streamed one is kept after being written, to be hashed while the last flushes wait on
 * the disk. Past it, chunks are hashed as they arrive, so memory per upload stays bounded
 * whatever the configured maximum.
 */
export const HOLD_FOR_HASH_MAX = 16 * 1024 * 1024;

/** Milliseconds per phase, for Server-Timing (hash runs while the last flushes are in flight). */
export interface WriteTiming {
  /** Creating the key's directory and the temporary file. */
  open: number;
  /** Waiting for body bytes, not counting the writes done meanwhile. */
  recv: number;
  /** Copying into the page cache (buffered), or the device write when it went straight to the disk. */
  write: number;
  hash: number;
  /** From the last byte until the file (data and metadata) and the key's new directories are durable. */
  fsync: number;
  rename: number;
  dirsync: number;
}

export interface WriteResult {
  size: number;
  /** The bytes went from the request's buffer to the disk (O_DIRECT), not through the page cache. */
  direct: boolean;
  /** SHA-256 of the bytes: the ETag (hex) and S3's x-amz-checksum-sha256 (base64). */
  sha256: Buffer;
  timing: WriteTiming;
}

/**
 * Stores a request body as the object `key`, atomically and durably before it returns:
 * temporary file beside the final one, fsync, rename, then fsync of the directory so the new
 * name survives a power cut too (a 200 means stored, as with S3). Directories created for the
 * key are made durable in their parents beside the file's fsync (started earlier, while the
 * file was being created, the parent's fsync held up that create by 0.25 ms p50). Any failure (too large, client
 * gone, disk error) deletes the temporary file: no partial object ever exists under the key.
 * Only a failing directory fsync after the rename leaves the complete object in place, as a
 * crash at that point would; a retry of the URL overwrites it. The caller has already refused
 * a declared length above `maxBytes`; every body, declared or chunked, is counted as it arrives.
 *
 * A body whose declared Content-Length is at most HOLD_FOR_HASH_MAX is read whole with
 * `request.bytes()` and written in one call: Bun then fills one buffer natively, where iterating
 * the body as a JavaScript stream cost 0.3 ms more per MiB on the event loop (PUT p50 −0.4 ms in
 * paired runs, 1 MiB), more than flushing during the transfer saved. From DIRECT_MIN_BYTES it goes
 * to the disk with O_DIRECT, straight from that buffer, on the thread pool, while the event loop
 * hashes it and `opts.inspect` judges it: on a VM that returns freed memory to its host, every
 * new page-cache page is a host fault once about 1 GiB has been written, and a 1 MiB write()
 * into the page cache then took 4.5 ms against 0.3 (PUT p50 10.1–11.0 → 7.1–8.3 ms); where
 * the page cache is cheap, the device write costs about what write() plus fsync did. A
 * filesystem that refuses O_DIRECT, or a buffer that is not page-aligned, takes the page cache
 * path below. Chunked or larger bodies are
 * streamed: each chunk is written to the temporary file as it arrives and flushed to the disk
 * while the next ones arrive (see Flusher), so memory stays bounded and most of the disk time
 * overlaps the transfer instead of following it. The directory and the file are created synchronously first:
 * created on the thread pool to overlap the first bytes, they were ready later (two pool
 * round trips) than the synchronous calls, and the upload was no faster.
 *
 * The bytes are hashed with SHA-256, not MD5 (S3's single-part ETag): with the CPU's SHA
 * extensions it costs 0.87 ms per MiB against MD5's 2.03 (best of 200 here). The hash runs
 * after the last byte, while the last flushes and the final fsync wait on the disk: hashing
 * during the transfer instead was measured no faster, the event loop being busy reading the
 * body then.
 */
export async function writeUpload(
  blobs: FsBlobStore,
  key: string,
  request: Request,
  maxBytes: number,
  opts: WriteOptions = {},
): Promise<WriteResult> {
  const inspect = opts.inspect;
  const o0 = performance.now();
  const dir = dirname(blobs.filePath(key));
  const created = mkdirSync(dir, { recursive: true });
  const tmp = blobs.tempName(key);
  const timing: WriteTiming = { open: 0, recv: 0, write: 0, hash: 0, fsync: 0, rename: 0, dirsync: 0 };
  const hasher = new Bun.CryptoHasher("sha256");
  const held: Uint8Array[] = []; // written, not hashed yet
  let heldBytes = 0;
  let fd = -1;
  let flusher: Flusher | null = null;
  let size = 0;
  let direct = false;
  try {
    const declared = declaredLength(request);
    const whole = declared !== null && declared <= Math.min(HOLD_FOR_HASH_MAX, maxBytes);
    fd = whole && declared >= DIRECT_MIN_BYTES && opts.direct !== false ? openDirect(tmp) : -1;
    if (fd >= 0) direct = true;
    else fd = openSync(tmp, "w", 0o600);
    flusher = new Flusher(fd);
    const t0 = performance.now();
    timing.open = t0 - o0;
    if (whole) {
      const body = await request.bytes();
      size = body.byteLength;
      if (size > maxBytes) throw new TooLarge(maxBytes);
      const w0 = performance.now();
      let stored = false;
      let hashed = false;
      if (direct && ptr(body) % DIRECT_ALIGN === 0) {
        // The device write runs on the thread pool; the hash (and the caller's inspection) meanwhile.
        const written = writeDirect(fd, body);
        let refused: boolean;
        try {
          const h0 = performance.now();
          hasher.update(body);
          inspect?.(body);
          timing.hash = performance.now() - h0;
          hashed = true;
        } finally {
          refused = await written; // never leave a pool thread writing to a descriptor being closed
        }
        stored = !refused;
      }
      if (!stored) {
        if (direct) {
          // Not aligned, or the filesystem takes O_DIRECT at open but not these writes: the page cache it is.
          direct = false;
          closeSync(fd);
          fd = -1;
          fd = openSync(tmp, "w", 0o600);
          flusher = new Flusher(fd);
        }
        writeAll(fd, body);
        if (!hashed) held.push(body);
      }
      timing.write = performance.now() - w0 - timing.hash;
    } else if (request.body) {
      for await (const chunk of request.body) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new TooLarge(maxBytes);
        const w0 = performance.now();
        writeAll(fd, chunk);
        flusher.wrote(chunk.byteLength);
        const w1 = performance.now();
        timing.write += w1 - w0;
        // `held` is always the not-yet-hashed tail of the body, so the hash sees bytes in order.
        if (heldBytes + chunk.byteLength <= HOLD_FOR_HASH_MAX) {
          held.push(chunk);
          heldBytes += chunk.byteLength;
        } else {
          for (const c of held.splice(0)) hasher.update(c);
          heldBytes = 0;
          hasher.update(chunk);
          timing.hash += performance.now() - w1;
        }
      }
    }
    const s0 = performance.now();
    timing.recv = s0 - t0 - timing.write - timing.hash;
    // Every byte is written, so the final fsync may start beside the flushes still running:
    // it waits for the pages they are writing and sends only what they do not cover.
    const synced = Promise.all([flusher.settle(), fsyncAsync(fd), syncCreated(created, dir)]);
    const h0 = performance.now();
    for (const c of held) {
      hasher.update(c); // CPU work overlapping the fsyncs, which run on the thread pool
      if (whole) inspect?.(c);
    }
    timing.hash += performance.now() - h0;
    await synced;
    closeSync(fd);
    fd = -1;
    const r0 = performance.now();
    timing.fsync = r0 - s0;
    blobs.commitTemp(tmp, key, true);
    timing.rename = performance.now() - r0;
    await fsyncPath(dir); // the rename itself
    timing.dirsync = performance.now() - r0 - timing.rename;
  } catch (e) {
    await flusher?.settle().catch(() => {}); // never close an fd a pool thread may still sync
    if (fd >= 0) closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  return { size, direct, sha256: hasher.digest(), timing };
}

export interface WriteOptions {
  /** false: never O_DIRECT (tests of the page-cache path). */
  direct?: boolean;
  /** Called with the whole body when it was held in memory (declared length up to HOLD_FOR_HASH_MAX), while the disk works. */
  inspect?: (body: Uint8Array) => void;
}

/** O_DIRECT wants memory, offsets and lengths in multiples of the logical block; 4 KiB covers today's disks. */
export const DIRECT_ALIGN = 4096;
/** Below this a body is not worth a device round trip of its own (and Bun's buffer may not be page-aligned). */
export const DIRECT_MIN_BYTES = 64 * 1024;

/** The temporary file opened for O_DIRECT writes, or -1 where the filesystem refuses them. */
function openDirect(tmp: string): number {
  try {
    return openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DIRECT, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EINVAL") return -1;
    throw e;
  }
}

/**
 * Writes a page-aligned body with O_DIRECT on the thread pool: the aligned bulk straight from the
 * body's memory, the last partial block through a zero-padded copy, then the file is cut to the
 * body's size. Resolves true when the filesystem refused the writes (EINVAL), so the caller can
 * write through the page cache instead; nothing it wrote then counts (the file is truncated).
 */
async function writeDirect(fd: number, body: Uint8Array): Promise<boolean> {
  const bulk = body.byteLength - (body.byteLength % DIRECT_ALIGN);
  const writes: Promise<unknown>[] = [];
  if (bulk) writes.push(writeFully(fd, body, 0, bulk));
  if (bulk < body.byteLength) {
    const pad = alignedBuffer(DIRECT_ALIGN);
    pad.set(body.subarray(bulk));
    writes.push(writeFully(fd, pad, bulk, DIRECT_ALIGN));
  }
  const results = await Promise.allSettled(writes);
  const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
  if (failed) {
    if ((failed.reason as NodeJS.ErrnoException)?.code === "EINVAL") return true;
    throw failed.reason;
  }
  if (bulk < body.byteLength) ftruncateSync(fd, body.byteLength);
  return false;
}

async function writeFully(fd: number, bytes: Uint8Array, position: number, length: number): Promise<void> {
  for (let off = 0; off < length; ) {
    const n = await writeAsync(fd, bytes, off, length - off, position + off);
    if (n <= 0) throw Object.assign(new Error("short O_DIRECT write"), { code: "EIO" });
    off += n;
  }
}

/** `size` fresh zeroed bytes at a page-aligned address, as O_DIRECT wants its memory. */
export function alignedBuffer(size: number): Uint8Array {
  const mem = new Uint8Array(size + DIRECT_ALIGN);
  const at = (DIRECT_ALIGN - (ptr(mem) % DIRECT_ALIGN)) % DIRECT_ALIGN;
  return mem.subarray(at, at + size);
}

/** Content-Length when the client declared one (HTTP framing then guarantees exactly that many bytes). */
function declaredLength(request: Request): number | null {
  const v = request.headers.get("content-length");
  if (v === null || !/^\d+$/.test(v)) return null;
  return Number(v);
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off);
}

/** The entries of directories mkdir just created: their parents, up to the first one that already existed. */
async function syncCreated(created: string | undefined, dir: string): Promise<void> {
  if (!created) return;
  const dirs: string[] = [];
  for (let d = dir; d !== created; d = dirname(d)) dirs.push(dirname(d));
  dirs.push(dirname(created));
  await Promise.all(dirs.map(fsyncPath));
}

async function fsyncPath(path: string): Promise<void> {
  const fd = openSync(path, "r");
  try {
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
}
