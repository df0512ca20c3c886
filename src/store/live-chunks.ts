import type { Db } from "./db.ts";

/**
 * Of the given chunk ids, those still live: chunk not deleted, its document not deleted and
 * READY, and the chunk of the document's current generation. Retrieval filters every index
 * hit through this, so SQLite stays the single source of truth for visibility.
 */
export function liveChunkIds(db: Db, orgId: string, chunkIds: string[]): Set<string> {
  if (chunkIds.length === 0) return new Set();
  const marks = chunkIds.map(() => "?").join(",");
  const rows = db
    .query<{ id: string }, string[]>(
      `SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
       WHERE c.org_id = ? AND c.id IN (${marks}) AND c.deleted_at IS NULL AND d.deleted_at IS NULL
         AND d.status = 'READY' AND c.generation = d.generation`,
    )
    .all(orgId, ...chunkIds);
  return new Set(rows.map((r) => r.id));
}
