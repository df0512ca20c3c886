import type { Db } from "../store/db.ts";
import { CORPUS_CASCADE } from "../corpus/service.ts";
import type { CorpusDrop } from "../corpus/drops.ts";
import { bump } from "../chunks/epochs-sql.ts";

/**
 * Which chunk sets are live now depends on the corpus too, and chunk search caches its answers
 * by the organization's search epoch (chunks/epochs-sql.ts), bumped by writes to documents: the
 * corpus deletion writes none, so it bumps the epoch itself.
 */
const EPOCH_BUMP = bump("$org").replace(/;\s*$/, "");

if (!CORPUS_CASCADE.includes(EPOCH_BUMP)) CORPUS_CASCADE.push(EPOCH_BUMP);

/**
 * The background part (corpus/drops.ts): up to `limit` documents of the deleted corpus are marked
 * deleted as of the corpus' deletion, in the same transaction as the chunk drop
 * (documents/chunk-drops.ts) and the vector drop (documents/vector-drops.ts) of each, and as
 * their storage usage: one "removed" event per user who filed documents of the batch, with the
 * sum of their sizes. The reports sum amounts per day, user and corpus, so they end exactly as
 * with the previous one event per document, and a document is counted once, when it is marked.
 */
export function markCorpusDocuments(db: Db, d: CorpusDrop, limit: number): number {
  if (limit <= 0) return 0;
  // Oldest first, in documents_corpus order (no sort).
  const ids = db
    .query<{ id: string }, [string, string, number]>(
      "SELECT id FROM documents WHERE org_id = ? AND corpus_id = ? AND deleted_at IS NULL ORDER BY created_at, id LIMIT ?",
    )
    .all(d.orgId, d.corpusId, limit)
    .map((r) => r.id);
  if (!ids.length) return 0;
  const p = { org: d.orgId, corpus: d.corpusId, at: d.at, ids: JSON.stringify(ids) };
  // `+org_id`: not an index term. Left to itself SQLite walked every document of the organization
  // by an (org_id, …) index to find the batch's, instead of one primary-key lookup per id.
  db.query(`INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source)
    SELECT $org, $at, 'storage', 'removed', sum(size), user_id, $corpus, 'document' FROM documents
    WHERE +org_id = $org AND id IN (SELECT value FROM json_each($ids)) AND size > 0 GROUP BY user_id`).run(p);
  db.query("INSERT INTO chunk_drops (org_id, document_id, created_at) SELECT $org, value, $at FROM json_each($ids)").run(p);
  db.query("INSERT INTO vector_drops (org_id, document_id, generation, created_at) SELECT $org, value, NULL, $at FROM json_each($ids)").run(p);
  db.query("UPDATE documents SET deleted_at = $at WHERE +org_id = $org AND id IN (SELECT value FROM json_each($ids))").run(p);
  return ids.length;
}
