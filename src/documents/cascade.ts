import { CORPUS_CASCADE } from "../corpus/service.ts";
import { CORPUS_VECTOR_DROPS } from "./vector-drops.ts";
import { CORPUS_CHUNK_DROPS } from "./chunk-drops.ts";

/**
 * Deleting a corpus soft-deletes its documents (a statement already in CORPUS_CASCADE); their
 * stored bytes stop counting at that moment. This must run before that statement, while the
 * documents are still live, hence unshift. Registered once, at import.
 */
const STORAGE_REMOVED = `INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source)
  SELECT org_id, $now, 'storage', 'removed', size, user_id, corpus_id, 'document' FROM documents
  WHERE org_id = $org AND corpus_id = $corpus AND deleted_at IS NULL AND size > 0`;

if (!CORPUS_CASCADE.includes(STORAGE_REMOVED)) CORPUS_CASCADE.unshift(STORAGE_REMOVED);

// Also before the documents are marked deleted: their vectors are dropped after the commit.
if (!CORPUS_CASCADE.includes(CORPUS_VECTOR_DROPS)) CORPUS_CASCADE.unshift(CORPUS_VECTOR_DROPS);

// Also before the documents are marked deleted: their chunks are marked after the commit, a few at a time.
if (!CORPUS_CASCADE.includes(CORPUS_CHUNK_DROPS)) CORPUS_CASCADE.unshift(CORPUS_CHUNK_DROPS);
