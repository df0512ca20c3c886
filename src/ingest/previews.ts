/**
 * Page previews of a READY PDF, rendered in the worker pool at low priority (parsing of other
 * documents always goes first) in small page batches, so one long PDF neither holds a worker for
 * minutes nor hits the per-request time limit. Best effort: a failure is logged, never surfaces
 * on the document; a tile that does not exist answers 404 at the URL route.
 */
import type { Logger } from "../context.ts";
import type { BlobStore } from "../store/blob.ts";
import { previewKey } from "../store/blob-keys.ts";
import type { Db } from "../store/db.ts";
import { loadDoc } from "./job-store.ts";
import type { WorkerPool } from "./pool.ts";

export const PREVIEW_BATCH = 8;

export interface PreviewJob {
  orgId: string;
  documentId: string;
  generation: number;
  blobKey: string;
  nbPages: number;
}

export async function renderPreviews(deps: { db: Db; blobs: BlobStore; pool: WorkerPool; log: Logger }, p: PreviewJob): Promise<number> {
  const path = deps.blobs.filePath?.(p.blobKey);
  let written = 0;
  try {
    for (let first = 0; first < p.nbPages; first += PREVIEW_BATCH) {
      const doc = loadDoc(deps.db, p.orgId, p.documentId);
      // Stop when the document was deleted or replaced meanwhile.
      if (!doc || doc.deleted_at !== null || doc.generation !== p.generation || doc.status !== "READY") return written;
      const bytes = path ? undefined : ((await deps.blobs.get(p.blobKey)) ?? undefined);
      const pages = Array.from({ length: Math.min(PREVIEW_BATCH, p.nbPages - first) }, (_, i) => first + i);
      const puts: Promise<unknown>[] = [];
      await deps.pool.run({ type: "previews", path, bytes, pages }, {
        priority: "low",
        onMessage: (m) => {
          if (m.type !== "preview") return;
          puts.push(deps.blobs.put(previewKey(p.orgId, p.documentId, p.generation, m.page, m.size), m.png).then(() => written++));
        },
      });
      await Promise.all(puts);
    }
  } catch (e) {
    deps.log.error("preview rendering failed", { documentId: p.documentId, error: e instanceof Error ? e.message : String(e) });
  }
  return written;
}
