import type { FsBlobStore } from "../../src/store/fs-blob.ts";
import type { UploadedObject } from "../../src/storage/grants.ts";

/** The storage route's record of a stored object with only a hash (no verdict), as inspectUpload takes it. */
export async function recordedHashOf(blobs: FsBlobStore, key: string, contentType: string, sha256?: string): Promise<UploadedObject | null> {
  if (sha256 === undefined) return null;
  return { size: (await blobs.stat(key))?.size ?? 0, sha256, contentType, verdict: null };
}
