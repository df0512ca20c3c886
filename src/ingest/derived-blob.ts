/**
 * Writes of derived blobs (the converted markdown): atomic (temporary file renamed over the
 * key, so readers never see half an object) but not fsynced. The markdown is regenerated from
 * the original by the next ingestion of the document, so after a power loss at worst an older
 * or empty copy survives; an fsync per document was the single largest fixed cost of ingesting
 * small files. Stores that are not file based use their own put.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
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
    writeFileSync(tmp, data);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, data);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
