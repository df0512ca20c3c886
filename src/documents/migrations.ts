import type { Migration } from "../store/migration.ts";

/**
 * Times are epoch milliseconds. JSON columns (metadata, tags, chunk) are TEXT.
 * `generation` grows at each content replacement, so work of an older generation
 * (a late ingestion, old vectors) can be recognised and discarded.
 */
export const migrations: Migration[] = [
  {
    id: "documents-001",
    sql: `
      CREATE TABLE documents (
        id TEXT PRIMARY KEY, org_id TEXT NOT NULL, corpus_id TEXT NOT NULL,
        filename TEXT NOT NULL, content_type TEXT NOT NULL,
        status TEXT NOT NULL, status_msg TEXT,
        size INTEGER, tokens INTEGER, nb_words INTEGER, nb_pages INTEGER NOT NULL DEFAULT 0,
        user_id TEXT, provider TEXT, lang TEXT,
        metadata TEXT NOT NULL DEFAULT '{}', tags TEXT, chunk TEXT,
        doc_create INTEGER, doc_update INTEGER,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted_at INTEGER,
        blob_key TEXT NOT NULL, content_hash TEXT, summary TEXT,
        stage TEXT, stage_done INTEGER, stage_total INTEGER,
        generation INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX documents_corpus ON documents(org_id, corpus_id, deleted_at, created_at, id);
      CREATE INDEX documents_hash ON documents(org_id, corpus_id, content_hash);
    `,
  },
  {
    // Single-use upload URLs: a PUT claims its nonce here (claimed_at) before writing a byte,
    // so a replay or the loser of a race is refused without touching the object.
    // filename_lc: JS-lower-cased filename, so prefix search is case-insensitive beyond ASCII.
    id: "documents-002",
    sql: `
      CREATE TABLE upload_grants (
        nonce TEXT PRIMARY KEY, org_id TEXT NOT NULL, document_id TEXT NOT NULL, generation INTEGER NOT NULL,
        blob_key TEXT NOT NULL, content_type TEXT NOT NULL, expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL,
        claimed_at INTEGER, completed_at INTEGER, size INTEGER);
      CREATE INDEX upload_grants_doc ON upload_grants(org_id, document_id, generation);
      ALTER TABLE documents ADD COLUMN filename_lc TEXT;
      UPDATE documents SET filename_lc = lower(filename);
      CREATE INDEX documents_filename ON documents(org_id, corpus_id, filename_lc);
    `,
  },
  {
    // The SHA-256 the storage route computed while writing the object (its ETag), so commit
    // deduplicates on it instead of hashing the whole file again.
    id: "documents-003",
    sql: `ALTER TABLE upload_grants ADD COLUMN sha256 TEXT;`,
  },
  {
    // Vectors of removed content still to drop from LanceDB (vector-drops.ts); generation NULL: all.
    id: "documents-004",
    sql: `CREATE TABLE vector_drops (
      id INTEGER PRIMARY KEY AUTOINCREMENT, org_id TEXT NOT NULL, document_id TEXT NOT NULL,
      generation INTEGER, created_at INTEGER NOT NULL);`,
  },
  {
    // The storage route's verdict on the bytes (is this the declared type?), judged while it held
    // them in memory, so commit need not read the object back (inspected 1: sniff_reason is the
    // verdict, NULL meaning fine; NULL: not judged, commit reads the file as before).
    id: "documents-005",
    sql: `ALTER TABLE upload_grants ADD COLUMN inspected INTEGER;
      ALTER TABLE upload_grants ADD COLUMN sniff_reason TEXT;`,
  },
  {
    // Sorted document searches (UPDATED_AT, SIZE, FILENAME) read the whole corpus into a sort:
    // 65 ms for the first page of 50,000 documents, 250 ms for page 1500 (every skipped row read
    // in full). With the sort column in an index after the equality columns, a page is read in
    // order and the rows before it are skipped in the index. The filename index gains deleted_at
    // and id for the same reason, and serves the prefix range of `q` (search.ts).
    id: "documents-006",
    sql: `
      CREATE INDEX documents_updated ON documents(org_id, corpus_id, deleted_at, updated_at, id);
      CREATE INDEX documents_size ON documents(org_id, corpus_id, deleted_at, size, id);
      DROP INDEX documents_filename;
      CREATE INDEX documents_filename ON documents(org_id, corpus_id, deleted_at, filename_lc, id);`,
  },
  {
    // Chunks of a deleted corpus' documents still to mark deleted (chunk-drops.ts), in the
    // background in small transactions instead of inside the corpus deletion.
    id: "documents-007",
    sql: `CREATE TABLE chunk_drops (
      id INTEGER PRIMARY KEY AUTOINCREMENT, org_id TEXT NOT NULL, document_id TEXT NOT NULL, created_at INTEGER NOT NULL);`,
  },
  {
    // 1 when ingestion detected `lang` (the client gave none), so that new content
    // (PUT /v1/doc/{id}/init) is detected again instead of keeping the previous content's
    // language. NULL on older rows: not known, so their language is kept as before.
    id: "documents-008",
    sql: `ALTER TABLE documents ADD COLUMN lang_detected INTEGER;`,
  },
];
