/**
 * Vectors of removed content, dropped from the index after the SQLite commit that removed it.
 * The drop is written in the same transaction (document delete, new content, corpus delete) and
 * carried out here, then removed: so a server that dies between the commit and LanceDB, or a
 * LanceDB write that fails, only delays it to the next pass or the next start. Before, the
 * delete was a call after the commit, lost on a crash, and a corpus delete made none at all:
 * retrieval filters hits through SQLite, so answers stayed right, but the rows stayed for good
 * (on disk, in the in-memory vector copy, in every scan and in BM25's statistics).
 */
import type { Logger } from "../context.ts";
import type { Db } from "../store/db.ts";
import type { VectorIndex } from "../store/vector.ts";
import { nextTurn, startDrainLoop, type DrainLoop } from "../store/drain-loop.ts";

/** Inside the removing transaction. `generation` null drops every generation (the document is gone). */
export function recordVectorDrop(db: Db, orgId: string, documentId: string, generation: number | null, now: number): void {
  db.query("INSERT INTO vector_drops (org_id, document_id, generation, created_at) VALUES (?, ?, ?, ?)").run(orgId, documentId, generation, now);
}

/** Inside the transaction that deletes one chunk: only its vector goes, not its document's. */
export function recordChunkDrop(db: Db, orgId: string, documentId: string, chunkId: string, now: number): void {
  db.query("INSERT INTO vector_drops (org_id, document_id, chunk_id, created_at) VALUES (?, ?, ?, ?)").run(orgId, documentId, chunkId, now);
}

const POLL_MS = 2000;
/**
 * Drops read per pass. A corpus delete records one drop per document; carried out one by one
 * they cost a Lance commit each and an optimize every 25 (9 ms a document at 400,000 rows; a
 * 50,000-document corpus kept the table's write queue, which every organization's ingestion
 * shares, busy for over 20 minutes). Whole-document drops of one organization are grouped into
 * one deleteDocuments call: one commit per 500 documents.
 */
const BATCH = 2000;

type DropRow = { id: number; org_id: string; document_id: string; generation: number | null; chunk_id?: string | null };
/** One write call: `chunkIds` set drops those chunks' vectors only (and no preview tiles). */
type DropGroup = { orgId: string; documentIds: string[]; generation?: number; chunkIds?: string[]; ids: number[] };

/**
 * The rows in write calls: whole-document drops grouped per organization, chunk drops likewise,
 * generation drops alone.
 */
export function groupDrops(rows: DropRow[]): DropGroup[] {
  const out: DropGroup[] = [];
  const whole = new Map<string, { orgId: string; documentIds: string[]; ids: number[] }>();
  const chunks = new Map<string, { orgId: string; documentIds: string[]; chunkIds: string[]; ids: number[] }>();
  for (const r of rows) {
    if (r.chunk_id) {
      let g = chunks.get(r.org_id);
      if (!g) chunks.set(r.org_id, (g = { orgId: r.org_id, documentIds: [], chunkIds: [], ids: [] }));
      g.chunkIds.push(r.chunk_id);
      g.ids.push(r.id);
      continue;
    }
    if (r.generation !== null) {
      out.push({ orgId: r.org_id, documentIds: [r.document_id], generation: r.generation, ids: [r.id] });
      continue;
    }
    let g = whole.get(r.org_id);
    if (!g) whole.set(r.org_id, (g = { orgId: r.org_id, documentIds: [], ids: [] }));
    if (!g.documentIds.includes(r.document_id)) g.documentIds.push(r.document_id);
    g.ids.push(r.id);
  }
  return [...whole.values(), ...chunks.values(), ...out];
}

/**
 * Carries out recorded drops: at once when kicked (after a delete), every POLL_MS otherwise (corpus
 * deletes, retries). `removeFiles` removes the other derived files of the removed content (preview
 * tiles, ingest/previews.ts) before the drop is forgotten; it handles its own failures.
 */
export function startVectorDrops(
  db: Db, vectors: VectorIndex, log: Logger, removeFiles?: (orgId: string, documentId: string, generation?: number) => Promise<void>,
): DrainLoop {
  const forget = db.prepare("DELETE FROM vector_drops WHERE id = ?");
  const pass = async (closed: () => boolean) => {
    for (;;) {
      const rows = db
        .query<DropRow, [number]>("SELECT id, org_id, document_id, generation, chunk_id FROM vector_drops ORDER BY id LIMIT ?")
        .all(BATCH);
      for (const g of groupDrops(rows)) {
        if (closed()) return;
        if (g.chunkIds) await vectors.deleteChunks(g.orgId, g.chunkIds);
        else if (g.generation !== undefined) await vectors.deleteDocument(g.orgId, g.documentIds[0]!, g.generation);
        else if (vectors.deleteDocuments) await vectors.deleteDocuments(g.orgId, g.documentIds);
        else for (const d of g.documentIds) await vectors.deleteDocument(g.orgId, d);
        if (removeFiles && !g.chunkIds) for (const d of g.documentIds) await removeFiles(g.orgId, d, g.generation);
        // On a turn of its own, not right after another background loop's transaction.
        await nextTurn();
        db.transaction(() => {
          for (const id of g.ids) forget.run(id);
        })();
      }
      if (rows.length < BATCH) return;
    }
  };
  return startDrainLoop({
    pass,
    pollMs: POLL_MS,
    log,
    // Kept for the next pass; said once until a pass succeeds.
    failing: "could not drop vectors of removed documents; retrying",
    recovered: "vector drops carried out again",
  });
}
