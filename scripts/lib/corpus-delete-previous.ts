/**
 * The corpus deletion cascade of the version before background marking, statement for statement
 * (one transaction, bound with $now, $org, $corpus): the end-state oracle of
 * test/documents/corpus-delete-background.test.ts and the baseline of bench-corpus-delete.ts.
 */
export const PREVIOUS_CORPUS_CASCADE = [
  `INSERT INTO chunk_drops (org_id, document_id, created_at)
     SELECT org_id, id, $now FROM documents WHERE org_id = $org AND corpus_id = $corpus AND deleted_at IS NULL`,
  `INSERT INTO vector_drops (org_id, document_id, generation, created_at)
     SELECT org_id, id, NULL, $now FROM documents WHERE org_id = $org AND corpus_id = $corpus AND deleted_at IS NULL`,
  `INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source)
     SELECT org_id, $now, 'storage', 'removed', size, user_id, corpus_id, 'document' FROM documents
     WHERE org_id = $org AND corpus_id = $corpus AND deleted_at IS NULL AND size > 0`,
  "UPDATE documents SET deleted_at = $now WHERE org_id = $org AND corpus_id = $corpus AND deleted_at IS NULL",
  `INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source)
     SELECT s.org_id, $now, 'sessions', 'removed', 1, s.user_id,
            (SELECT f.corpus_id FROM session_corpora f WHERE f.session_id = s.id ORDER BY f.pos LIMIT 1), NULL
     FROM sessions s JOIN session_corpora sc ON sc.session_id = s.id
     WHERE sc.org_id = $org AND sc.corpus_id = $corpus AND s.org_id = $org AND s.deleted_at IS NULL`,
  `UPDATE sessions SET deleted_at = $now
     WHERE org_id = $org AND deleted_at IS NULL
       AND id IN (SELECT session_id FROM session_corpora WHERE org_id = $org AND corpus_id = $corpus)`,
];
