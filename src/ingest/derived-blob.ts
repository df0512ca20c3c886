/**
 * Writes of derived blobs (the converted markdown): atomic (temporary file renamed over the
 * key, so readers never see half an object) but not fsynced. The markdown is regenerated from
 * the original by the next ingestion of the document, so after a power loss at worst an older
 * or empty copy survives; an fsync per document was the single largest fixed cost of ingesting
 * small files. The file calls are asynchronous (libuv's thread pool), so a batch's writes run
 * in parallel and off the event loop. Stores that are not file based use their own put.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { BlobStore } from "../store/blob.ts";

export async function putDerived(blobs: BlobStore, key: string, data: string): Promise<void> {
  const path = blobs.filePath?.(key);
  if (!path) {
    await blobs.put(key, data);
    return;
  }
  const tmp = `${path}.tmp-${process.pid}-${crypto.randomUUID()}`;
  try {
    try {
      await writeFile(tmp, data);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      await mkdir(dirname(path), { recursive: true });
      await writeFile(tmp, data);
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
