import { closeSync, fsync, openSync, rmSync, writeSync } from "node:fs";
import { promisify } from "node:util";
import type { FsBlobStore } from "../store/fs-blob.ts";

const fsyncAsync = promisify(fsync);

export class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The upload exceeds the maximum size of ${limit} bytes`);
  }
}

/**
 * Streams a request body into the object `key`: temporary file beside the final one, byte
 * count checked on every chunk (a chunked body has no Content-Length to trust), fsync, then
 * rename. Any failure (too large, client gone, disk error) deletes the temporary file, so no
 * partial object ever exists under the key. Returns the size and an MD5 ETag, as S3 does.
 */
export async function streamToBlob(
  blobs: FsBlobStore,
  key: string,
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ size: number; etag: string; fsyncMs: number }> {
  const tmp = blobs.tempPath(key);
  let fd = openSync(tmp, "w", 0o600);
  let size = 0;
  const md5 = new Bun.CryptoHasher("md5");
  let fsyncMs = 0;
  try {
    if (body) {
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new TooLarge(maxBytes);
        let off = 0;
        while (off < chunk.byteLength) off += writeSync(fd, chunk, off, chunk.byteLength - off);
        md5.update(chunk);
      }
    }
    const f0 = performance.now();
    await fsyncAsync(fd); // on the thread pool, so other requests keep flowing meanwhile
    fsyncMs = performance.now() - f0;
    closeSync(fd);
    fd = -1;
    blobs.commitTemp(tmp, key, true);
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  return { size, etag: md5.digest("hex"), fsyncMs };
}
