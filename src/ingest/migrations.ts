import type { Migration } from "../store/migration.ts";

/**
 * The durable hand-off between commit and ingestion: commit inserts a job in the same
 * transaction that moves the document to PROCESSING.
 */
export const migrations: Migration[] = [
  {
    id: "ingest-001",
    sql: `
      CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT, org_id TEXT NOT NULL, document_id TEXT NOT NULL,
        generation INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'queued',
        attempts INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL,
        started_at INTEGER, finished_at INTEGER, error TEXT);
      CREATE INDEX jobs_state ON jobs(state, org_id, id);
    `,
  },
  {
    // Which LanceDB table serves searches, and the rebuild (re-embedding) in progress if any.
    // One row, so switching the active table is a single UPDATE. See store/index-state.ts.
    id: "ingest-index-state-001",
    sql: `
      CREATE TABLE index_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        active_embedder TEXT NOT NULL, active_table TEXT NOT NULL,
        building_embedder TEXT, building_table TEXT,
        cursor TEXT NOT NULL DEFAULT '', done INTEGER NOT NULL DEFAULT 0, total INTEGER NOT NULL DEFAULT 0,
        started_at INTEGER, finished_at INTEGER, retired_table TEXT, updated_at INTEGER NOT NULL);
    `,
  },
  {
    // The converted markdown of documents small enough to keep in the database (converted.ts);
    // larger ones stay in the blob store. Written in the READY transaction.
    id: "ingest-converted-001",
    sql: `
      CREATE TABLE converted (
        id INTEGER PRIMARY KEY, org_id TEXT NOT NULL, document_id TEXT NOT NULL,
        generation INTEGER NOT NULL, markdown TEXT NOT NULL);
      CREATE UNIQUE INDEX converted_doc ON converted(document_id, generation);
    `,
  },
  {
    // Previews still to render, so a stop or crash resumes them (preview-jobs.ts).
    id: "ingest-previews-001",
    sql: `
      CREATE TABLE preview_jobs (
        document_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, generation INTEGER NOT NULL,
        next_page INTEGER NOT NULL DEFAULT 0, starts INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL);
    `,
  },
  {
    // PDFs made READY before ingest-previews-001 (by a build that rendered previews in memory
    // only) may have tiles that stop part-way: a stop or crash during their rendering left the
    // other pages 404 for good. Each gets a job whose next_page is unknown (UNKNOWN_NEXT_PAGE):
    // the renderer looks for where its tiles stop and renders from there (previews.ts). On a
    // directory created by a build that has preview_jobs this selects nothing.
    id: "ingest-previews-002",
    sql: `
      INSERT OR IGNORE INTO preview_jobs (document_id, org_id, generation, next_page, starts, created_at)
      SELECT d.id, d.org_id, d.generation, -1, 0, d.created_at FROM documents d
      WHERE d.deleted_at IS NULL AND d.status = 'READY' AND d.nb_pages > 0
        AND (lower(trim(d.content_type)) = 'application/pdf' OR lower(trim(d.content_type)) LIKE 'application/pdf;%')
        AND d.created_at <= (SELECT applied_at FROM _migrations WHERE id = 'ingest-previews-001');
    `,
  },
];
