/**
 * Where a document's converted form (its markdown) is kept. A small one goes into the database,
 * in the same transaction that makes the document READY (job-store.ts, table `converted`): on
 * this kind of disk a file and its directory cost 0.2–1.2 ms of kernel time each to create, which
 * was about a fifth of the CPU a small document costs the whole service, where a row costs
 * microseconds. A large one (a long PDF, a big HTML page) is a blob, written before that
 * transaction, so the database and its write-ahead log do not carry megabytes of text.
 *
 * Blob writes are atomic (temporary file renamed over the key, so readers never see half an
 * object) but not fsynced. The markdown is regenerated from the original by the next ingestion
 * of the document, so after a power loss at worst an older or empty copy survives. The file
 * calls are asynchronous (libuv's thread pool), so a batch's writes run in parallel and off the
 * event loop. Stores that are not file based use their own put.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { BlobStore } from "../store/blob.ts";
import { markdownKey } from "../store/blob-keys.ts";
import type { Db } from "../store/db.ts";
import { loadConverted } from "./job-store.ts";
import { tempSuffix } from "../store/temp-sweep.ts";

/** Markdown up to this many characters is kept in the database, longer in the blob store. */
export const INLINE_MARKDOWN_CHARS = 64 * 1024;

export const keptInline = (markdown: string) => markdown.length <= INLINE_MARKDOWN_CHARS;

/** The converted markdown of a document generation, wherever it was kept; null when there is none (not READY yet). */
export async function readConverted(db: Db, blobs: BlobStore, orgId: string, docId: string, generation: number): Promise<string | null> {
  const inline = loadConverted(db, orgId, docId, generation);
  if (inline !== null) return inline;
  const bytes = await blobs.get(markdownKey(orgId, docId, generation));
  return bytes && new TextDecoder().decode(bytes);
}

export async function putDerived(blobs: BlobStore, key: string, data: string): Promise<void> {
  const path = blobs.filePath?.(key);
  if (!path) {
    await blobs.put(key, data);
    return;
  }
  const tmp = `${path}${tempSuffix()}`;
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
