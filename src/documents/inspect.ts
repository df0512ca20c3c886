import { readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { BlobStore } from "../store/blob.ts";
import type { UploadedObject } from "../storage/grants.ts";
import { mediaType } from "../ingest/formats.ts";
import type { ByteSource } from "../ingest/convert/zip.ts";
import { sniff, sniffArchive, sniffNeeds, SNIFF_HEAD_BYTES, TextSniffer } from "../ingest/sniff.ts";

export interface Inspection {
  size: number;
  /** Why the bytes are not of the declared type, or null. */
  reason: string | null;
  sha256: string;
}

/**
 * What commit must know of an uploaded object: its size, whether it is of the declared type, and
 * its SHA-256 (the storage route's, when it recorded one for these bytes). Commit runs on the
 * server's event loop, and held the whole object (up to --max-upload-bytes) in memory: six
 * concurrent commits of 95 MB files took the server to 1.2 GB. Now a PDF is judged by its first
 * KiB, an Office file by its zip directory and [Content_Types].xml, read where they are, and a
 * text file is read a piece at a time, checked and hashed as it goes, yielding to other requests
 * between pieces. A file is read whole (in pieces) only to hash it when the upload recorded no hash,
 * and not at all when the storage route also judged the bytes (it held them whole while writing):
 * its record stands for the object when it is of the same size and declared type.
 */
export async function inspectUpload(
  blobs: BlobStore,
  key: string,
  /** The object's size, as the caller's stat found it (commit checks it against the limit first). */
  statSize: number,
  contentType: string,
  /** What the storage route recorded of the bytes it wrote, if it wrote them (uploadedObject). */
  recorded: UploadedObject | null,
  log: (error: unknown) => void,
): Promise<Inspection | null> {
  const recordedHash = (size: number) => (recorded?.size === size ? recorded.sha256 : undefined);
  if (recorded?.verdict && recorded.size === statSize && mediaType(recorded.contentType) === mediaType(contentType)) {
    return { size: statSize, reason: recorded.verdict.reason, sha256: recorded.sha256 };
  }
  const judge = (bytes: Uint8Array) => judgeBytes(bytes, contentType, log);
  const path = blobs.filePath?.(key);
  const needs = sniffNeeds(contentType);
  if (!path || needs === "whole") {
    const bytes = await blobs.get(key);
    if (!bytes) return null;
    return { size: bytes.length, reason: judge(bytes), sha256: recordedHash(bytes.length) ?? sha256(bytes) };
  }
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  const known = recordedHash(statSize);
  // Read once, a piece at a time: the type check (text) or the first KiB (PDF), and the hash when none was recorded.
  const hasher = known ? null : new Bun.CryptoHasher("sha256");
  const text = needs === "text" ? new TextSniffer() : null;
  const head: Uint8Array[] = [];
  let size = 0;
  let zipReason: string | null = null;
  // One buffer reused for every piece: a stream's fresh piece per read left hundreds of
  // megabytes of garbage behind a few large commits.
  const buffer = new Uint8Array(PIECE_BYTES);
  try {
    if (needs === "head" && known) {
      const { bytesRead } = await handle.read(buffer, 0, SNIFF_HEAD_BYTES, 0);
      return { size: statSize, reason: judge(buffer.subarray(0, bytesRead)), sha256: known };
    }
    if (needs === "zip" && known) return { size: statSize, reason: sniffArchive(fileSource(handle.fd, statSize), contentType), sha256: known };
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const piece = buffer.subarray(0, bytesRead);
      hasher?.update(piece);
      text?.push(piece);
      if (size < SNIFF_HEAD_BYTES) head.push(piece.slice(0, SNIFF_HEAD_BYTES - size));
      size += bytesRead;
    }
    if (needs === "zip") zipReason = sniffArchive(fileSource(handle.fd, size), contentType);
  } finally {
    await handle.close();
  }
  const reason = text ? text.finish() : needs === "zip" ? zipReason : judge(Buffer.concat(head));
  return { size, reason, sha256: known ?? hasher!.digest("hex") };
}

/**
 * Why whole bytes in memory are not of the declared type, or null. Sniffing reads untrusted
 * bytes: whatever it trips on is the file's fault (never a 500); the runtime's words go to the log.
 * The storage route calls this on the body it holds, and commit on what it reads back.
 */
export function judgeBytes(bytes: Uint8Array, contentType: string, log: (error: unknown) => void): string | null {
  try {
    return sniff(bytes, contentType);
  } catch (e) {
    log(e);
    return "the file could not be inspected (its structure cannot be read)";
  }
}

/**
 * A stored file read where a zip reader looks (synchronous, small reads: the directory and one
 * entry). A file that ends short of its stat'ed size reads as a corrupt archive.
 */
function fileSource(fd: number, size: number): ByteSource {
  return {
    size,
    read(offset, length) {
      const out = new Uint8Array(length);
      for (let got = 0; got < length; ) {
        const n = readSync(fd, out, got, length - got, offset + got);
        if (n === 0) throw new Error(`the file ends before byte ${offset + length}`);
        got += n;
      }
      return out;
    },
  };
}

const PIECE_BYTES = 1 << 20;

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
