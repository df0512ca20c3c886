import { liveCorpus } from "../corpus/drops.ts";

/**
 * The one definition of a live chunk, as an SQL condition over `chunks c` joined to its
 * `documents d`: chunk not deleted, document not deleted and READY, chunk of the document's
 * current generation, and the document's corpus not deleted (its documents are marked in the
 * background: corpus/drops.ts). Retrieval and citations both filter with it, so SQLite stays
 * the single source of truth for visibility: the vector index only proposes candidates.
 */
export const LIVE_CHUNK = `c.deleted_at IS NULL AND d.deleted_at IS NULL AND d.status = 'READY' AND c.generation = d.generation AND ${liveCorpus("d")}`;
