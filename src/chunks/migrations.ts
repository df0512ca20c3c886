import type { Migration } from "../store/migration.ts";
import { TERM, treeOf } from "./terms.ts";
import { BIT_TRIGGERS as BIT_TRIGGERS_005, BITS_REBUILD as BITS_REBUILD_005 } from "./bits-sql-005.ts";
import { BIT_TRIGGERS as BIT_TRIGGERS_006, BITS_REBUILD as BITS_REBUILD_006 } from "./bits-sql-006.ts";
import { BIT_TRIGGERS as BIT_TRIGGERS_007, BITS_REBUILD as BITS_REBUILD_007 } from "./bits-sql-007.ts";
import { INSERT_TRIGGER } from "./bits-sql.ts";
import { EPOCH_TRIGGERS } from "./epochs-sql.ts";

/**
 * Keep doc_seq and chunk_terms in step with chunk writes. A chunk set gets the doc_seq of its
 * (document, generation) if one exists, else the next number; terms exist only while the chunk
 * is undeleted. Terms key chunks by rowid: chunks must never be rebuilt with VACUUM INTO-style
 * copies that renumber rowids without rebuilding chunk_terms.
 */
const CHUNK_TRIGGERS = `
      CREATE TRIGGER chunks_ins AFTER INSERT ON chunks BEGIN
        UPDATE chunks SET doc_seq = COALESCE(NEW.doc_seq,
          (SELECT s.doc_seq FROM chunks s WHERE s.org_id = NEW.org_id AND s.document_id = NEW.document_id
             AND s.generation = NEW.generation AND s.doc_seq IS NOT NULL LIMIT 1),
          (SELECT COALESCE(MAX(m.doc_seq), 0) + 1 FROM chunks m))
        WHERE rowid = NEW.rowid;
        INSERT OR IGNORE INTO chunk_terms
          SELECT COALESCE((SELECT o.rowid FROM orgs o WHERE o.id = NEW.org_id), 0), ${TERM} AS term, c.doc_seq, NEW.rowid
          FROM chunks c, ${treeOf("NEW.metadata")} WHERE c.rowid = NEW.rowid AND NEW.deleted_at IS NULL AND term IS NOT NULL;
      END;
      CREATE TRIGGER chunks_upd AFTER UPDATE OF metadata, deleted_at ON chunks BEGIN
        DELETE FROM chunk_terms WHERE chunk_key = OLD.rowid;
        INSERT OR IGNORE INTO chunk_terms
          SELECT COALESCE((SELECT o.rowid FROM orgs o WHERE o.id = NEW.org_id), 0), ${TERM} AS term, NEW.doc_seq, NEW.rowid
          FROM ${treeOf("NEW.metadata")} WHERE NEW.deleted_at IS NULL AND term IS NOT NULL;
      END;
      CREATE TRIGGER chunks_del AFTER DELETE ON chunks BEGIN
        DELETE FROM chunk_terms WHERE chunk_key = OLD.rowid;
      END;
`;

/**
 * Chunk ids come from store/ids.ts orderedId(), so "first page, then id" is reading order.
 * first_page is 0 for an empty span, which sorts it first in its document as the spec says.
 */
export const migrations: Migration[] = [
  {
    id: "chunks-001",
    sql: `
      CREATE TABLE chunks (
        id TEXT PRIMARY KEY, org_id TEXT NOT NULL, corpus_id TEXT NOT NULL, document_id TEXT NOT NULL,
        generation INTEGER NOT NULL, seq INTEGER NOT NULL,
        pages TEXT NOT NULL DEFAULT '[]', first_page INTEGER NOT NULL DEFAULT 0,
        hash TEXT NOT NULL, metadata TEXT NOT NULL DEFAULT '{}', body TEXT,
        created_at INTEGER NOT NULL, deleted_at INTEGER);
      CREATE INDEX chunks_order ON chunks(org_id, deleted_at, document_id, first_page, id);
      CREATE INDEX chunks_doc ON chunks(org_id, document_id, generation);
      CREATE INDEX chunks_hash ON chunks(org_id, hash);
    `,
  },
  {
    // "Ordered by document" must let a client walk pageIndex without repeats or skips while other
    // documents are ingested. doc_seq numbers each (document, generation) chunk set in commit
    // order: the trigger runs inside the inserting transaction and SQLite has one writer at a
    // time, so a set committed later always gets a larger number. New chunks therefore only ever
    // append after everything a reader has already seen. Rows written before this migration are
    // numbered by their earliest created_at.
    //
    // chunk_terms is the metadata search index (see terms.ts) over undeleted chunks, keyed by
    // the organization's rowid and the chunk's rowid to stay small; it carries doc_seq so a
    // match is counted per document from the index alone. Triggers keep it in step with
    // whatever writes chunks, ingestion included.
    id: "chunks-002",
    sql: `
      ALTER TABLE chunks ADD COLUMN doc_seq INTEGER;
      WITH g AS (
        SELECT document_id, generation, ROW_NUMBER() OVER (ORDER BY min(created_at), document_id, generation) AS n
        FROM chunks GROUP BY document_id, generation)
      UPDATE chunks SET doc_seq = (SELECT n FROM g WHERE g.document_id = chunks.document_id AND g.generation = chunks.generation);
      CREATE INDEX chunks_doc_seq ON chunks(doc_seq);
      CREATE INDEX chunks_reading ON chunks(org_id, doc_seq, first_page, id) WHERE deleted_at IS NULL;
      CREATE TABLE chunk_terms (
        org_key INTEGER NOT NULL, term TEXT NOT NULL, doc_seq INTEGER NOT NULL, chunk_key INTEGER NOT NULL,
        PRIMARY KEY (org_key, term, doc_seq, chunk_key)) WITHOUT ROWID;
      CREATE INDEX chunk_terms_chunk ON chunk_terms(chunk_key);
      INSERT OR IGNORE INTO chunk_terms
        SELECT COALESCE((SELECT o.rowid FROM orgs o WHERE o.id = c.org_id), 0), ${TERM} AS term, c.doc_seq, c.rowid
        FROM chunks c, ${treeOf("c.metadata")} WHERE c.deleted_at IS NULL AND term IS NOT NULL;
      ${CHUNK_TRIGGERS}
    `,
  },
  {
    // Per (organization, term, document set) counts of chunk_terms, kept by triggers, so the
    // total of a one-term match (and of the plain listing, term '*') is a sum over documents
    // rather than a pass over every matching chunk. Rebuilds the index so older databases get '*'.
    id: "chunks-003",
    sql: `
      CREATE TABLE chunk_term_counts (
        org_key INTEGER NOT NULL, term TEXT NOT NULL, doc_seq INTEGER NOT NULL, n INTEGER NOT NULL,
        PRIMARY KEY (org_key, term, doc_seq)) WITHOUT ROWID;
      CREATE TRIGGER chunk_terms_ins AFTER INSERT ON chunk_terms BEGIN
        INSERT INTO chunk_term_counts (org_key, term, doc_seq, n) VALUES (NEW.org_key, NEW.term, NEW.doc_seq, 1)
          ON CONFLICT (org_key, term, doc_seq) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER chunk_terms_del AFTER DELETE ON chunk_terms BEGIN
        UPDATE chunk_term_counts SET n = n - 1 WHERE org_key = OLD.org_key AND term = OLD.term AND doc_seq = OLD.doc_seq;
        DELETE FROM chunk_term_counts WHERE org_key = OLD.org_key AND term = OLD.term AND doc_seq = OLD.doc_seq AND n <= 0;
      END;
      DROP TRIGGER chunks_ins; DROP TRIGGER chunks_upd; DROP TRIGGER chunks_del;
      ${CHUNK_TRIGGERS}
      DELETE FROM chunk_terms;
      INSERT OR IGNORE INTO chunk_terms
        SELECT COALESCE((SELECT o.rowid FROM orgs o WHERE o.id = c.org_id), 0), ${TERM} AS term, c.doc_seq, c.rowid
        FROM chunks c, ${treeOf("c.metadata")} WHERE c.deleted_at IS NULL AND term IS NOT NULL;
    `,
  },
  {
    // One row per chunk set: the liveness check of a search joins its ~one row per document
    // here instead of reading a chunk row per document.
    id: "chunks-004",
    sql: `
      CREATE TABLE chunk_sets (doc_seq INTEGER PRIMARY KEY, org_id TEXT NOT NULL, document_id TEXT NOT NULL, generation INTEGER NOT NULL);
      INSERT OR IGNORE INTO chunk_sets SELECT doc_seq, org_id, document_id, generation FROM chunks WHERE doc_seq IS NOT NULL;
      CREATE TRIGGER chunks_set AFTER UPDATE OF doc_seq ON chunks WHEN NEW.doc_seq IS NOT NULL BEGIN
        INSERT OR IGNORE INTO chunk_sets (doc_seq, org_id, document_id, generation) VALUES (NEW.doc_seq, NEW.org_id, NEW.document_id, NEW.generation);
      END;
    `,
  },
  {
    // Multi-key matches probed the term index once per matching chunk (5-20 µs each: hundreds
    // of ms for a 40% key). The bitmap index (bits-sql.ts) replaces chunk_terms and its counts:
    // one probe per 64 chunks, counts by popcount. chunk_sets gains a lookup by document for
    // the documentId filter.
    id: "chunks-005",
    sql: `
      DROP TRIGGER chunks_ins; DROP TRIGGER chunks_upd; DROP TRIGGER chunks_del;
      DROP TABLE chunk_terms; DROP TABLE chunk_term_counts;
      CREATE TABLE chunk_bits (
        org_key INTEGER NOT NULL, term TEXT NOT NULL, doc_seq INTEGER NOT NULL, word INTEGER NOT NULL, bits INTEGER NOT NULL,
        PRIMARY KEY (org_key, term, doc_seq, word)) WITHOUT ROWID;
      CREATE INDEX chunk_sets_doc ON chunk_sets(document_id, generation);
      ${BIT_TRIGGERS_005}
      ${BITS_REBUILD_005}
    `,
  },
  {
    // The page filter scanned every chunk of the organization (json_each of each span): pages
    // join the bitmap index as 'g:<page>' terms, maintained with the metadata terms.
    id: "chunks-006",
    sql: `
      DROP TRIGGER chunks_ins; DROP TRIGGER chunks_upd; DROP TRIGGER chunks_del;
      ${BIT_TRIGGERS_006}
      ${BITS_REBUILD_006}
    `,
  },
  {
    // Each word also keeps its popcount n, so a one-term match is counted per document by an
    // aggregate over the index in SQL, and words are read only for the documents of the page.
    id: "chunks-007",
    sql: `
      DROP TRIGGER chunks_ins; DROP TRIGGER chunks_upd; DROP TRIGGER chunks_del;
      ALTER TABLE chunk_bits ADD COLUMN n INTEGER NOT NULL DEFAULT 0;
      ${BIT_TRIGGERS_007}
      ${BITS_REBUILD_007}
    `,
  },
  {
    // A chunk set written through insertChunkSet (bulk.ts) gets its doc_seq in the INSERT and
    // its bits from one grouped statement, instead of a self-UPDATE and an upsert per term per
    // chunk. While a row of chunk_bulk exists (only inside that writer's transaction) the insert
    // trigger stands aside. The index itself is unchanged.
    id: "chunks-008",
    sql: `
      CREATE TABLE chunk_bulk (id INTEGER PRIMARY KEY);
      DROP TRIGGER chunks_ins;
      ${INSERT_TRIGGER}
    `,
  },
  {
    // Per-organization change counters, so the search cache (index-cache.ts) survives writes
    // that cannot change an organization's chunk search: other organizations, other tables.
    id: "chunks-009",
    sql: `
      CREATE TABLE chunk_epochs (org_key INTEGER PRIMARY KEY, v INTEGER NOT NULL);
      ${EPOCH_TRIGGERS}
    `,
  },
];
