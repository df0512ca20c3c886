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

/** The drop of a deleted corpus' documents, run in the corpus deletion transaction before they are marked deleted (cascade.ts). */
export const CORPUS_VECTOR_DROPS = `INSERT INTO vector_drops (org_id, document_id, generation, created_at)
  SELECT org_id, id, NULL, $now FROM documents WHERE org_id = $org AND corpus_id = $corpus AND deleted_at IS NULL`;

/** Inside the removing transaction. `generation` null drops every generation (the document is gone). */
export function recordVectorDrop(db: Db, orgId: string, documentId: string, generation: number | null, now: number): void {
  db.query("INSERT INTO vector_drops (org_id, document_id, generation, created_at) VALUES (?, ?, ?, ?)").run(orgId, documentId, generation, now);
}

const POLL_MS = 2000;
const BATCH = 50;

/** Carries out recorded drops: at once when kicked (after a delete), every POLL_MS otherwise (corpus deletes, retries). */
export function startVectorDrops(db: Db, vectors: VectorIndex, log: Logger): { kick(): void; close(): Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let failing = false;
  const pass = async () => {
    for (;;) {
      const rows = db
        .query<{ id: number; org_id: string; document_id: string; generation: number | null }, [number]>(
          "SELECT id, org_id, document_id, generation FROM vector_drops ORDER BY id LIMIT ?",
        )
        .all(BATCH);
      for (const r of rows) {
        if (closed) return;
        await vectors.deleteDocument(r.org_id, r.document_id, r.generation ?? undefined);
        db.query("DELETE FROM vector_drops WHERE id = ?").run(r.id);
      }
      if (rows.length < BATCH) return;
    }
  };
  const kick = () => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .then(() => {
        if (failing) log.info("vector drops carried out again");
        failing = false;
      })
      .catch((e) => {
        // Kept for the next pass; said once until a pass succeeds.
        if (!failing) log.error("could not drop vectors of removed documents; retrying", { error: String(e) });
        failing = true;
        again = false;
      })
      .finally(() => {
        running = null;
        if (again && !closed) {
          again = false;
          kick();
        }
      });
  };
  const timer = setInterval(kick, POLL_MS);
  timer.unref?.();
  kick();
  return {
    kick,
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
