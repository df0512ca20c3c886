import type { Migration } from "../store/migration.ts";

/**
 * Inserts the document_filters rows of the documents rows `r` names: `new` in a trigger (from
 * ""), or an alias of documents joined by `from` ("documents d,"), filtered by `where`; `kinds`
 * the keys to write ('s' status, 'l' lang, 't' tags). Tags are the values json_each reads from
 * the column, as the filter compared them before, once each; text SQLite cannot read as JSON
 * gives none (before, it failed the whole listing), nor does a JSON null (it never matched).
 */
function filtersInsert(r: string, from: string, where: string, kinds = "slt"): string {
  const cols = `${r}.org_id, ${r}.corpus_id, ${r}.created_at, ${r}.updated_at, ${r}.filename_lc, ${r}.size, ${r}.id`;
  const src = from ? `FROM ${from.replace(/,\s*$/, "")}` : "";
  const parts = {
    s: `SELECT ${cols}, 's', ${r}.status ${src} WHERE ${where}`,
    l: `SELECT ${cols}, 'l', ${r}.lang ${src} WHERE ${where} AND ${r}.lang IS NOT NULL`,
    t: `SELECT DISTINCT ${cols}, 't', j.value FROM ${from} json_each(CASE WHEN json_valid(${r}.tags) THEN ${r}.tags END) j
          WHERE ${where} AND j.value IS NOT NULL`,
  };
  return `INSERT INTO document_filters (org_id, corpus_id, created_at, updated_at, filename_lc, size, document_id, k, v)
        ${[...kinds].map((k) => parts[k as keyof typeof parts]).join("\n        UNION ALL\n        ")}`;
}

/** Columns whose change rewrites all of a document's rows (rare: a delete, mostly). */
const REWRITE = ["org_id", "corpus_id", "deleted_at"];
/**
 * Any other change is written in place by a trigger of its own, so a write touches only the rows
 * and indexes of what it changed: the status row's value, the lang row, the tag rows, or one sort
 * column of every row. They stand aside when a rewrite happens in the same statement.
 */
const inPlace = (col: string, body: string) => `CREATE TRIGGER documents_filters_${col} AFTER UPDATE OF ${col} ON documents
        WHEN old.${col} IS NOT new.${col} AND new.deleted_at IS NULL AND NOT (${REWRITE.map((c) => `old.${c} IS NOT new.${c}`).join(" OR ")}) BEGIN
        ${body};
      END;`;
const ORDER_COLUMNS = ["created_at", "updated_at", "filename_lc", "size"];

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
  {
    // Listings filtered by status, tags or lang tested every live document of the corpus, read in
    // full (47–105 ms at 50,000 documents, README, "Searches at 50,000 documents"). This table holds,
    // for each live document, one row per filter value it matches (k 's': its status, 'l': its
    // lang, 't': each tag) with copies of the sort columns, kept by triggers whatever writes the
    // document; each sort has an index after (k, v), so a filtered page is read in order from the
    // matching rows only and the rows before it are skipped in the index (search.ts). Without a
    // rowid, the primary key is also the lookup by document the triggers and searches make.
    id: "documents-009",
    sql: `
      CREATE TABLE document_filters (
        org_id TEXT NOT NULL, corpus_id TEXT NOT NULL, k TEXT NOT NULL, v,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, filename_lc TEXT, size INTEGER,
        document_id TEXT NOT NULL, PRIMARY KEY (document_id, k, v)) WITHOUT ROWID;
      CREATE INDEX document_filters_created ON document_filters(org_id, corpus_id, k, v, created_at, document_id);
      CREATE INDEX document_filters_updated ON document_filters(org_id, corpus_id, k, v, updated_at, document_id);
      CREATE INDEX document_filters_filename ON document_filters(org_id, corpus_id, k, v, filename_lc, document_id);
      CREATE INDEX document_filters_size ON document_filters(org_id, corpus_id, k, v, size, document_id);
      ${filtersInsert("d", "documents d,", "d.deleted_at IS NULL")};
      CREATE TRIGGER documents_filters_insert AFTER INSERT ON documents WHEN new.deleted_at IS NULL BEGIN
        ${filtersInsert("new", "", "1")};
      END;
      CREATE TRIGGER documents_filters_rewrite AFTER UPDATE OF ${REWRITE.join(", ")} ON documents
        WHEN ${REWRITE.map((c) => `old.${c} IS NOT new.${c}`).join(" OR ")} BEGIN
        DELETE FROM document_filters WHERE document_id = old.id;
        ${filtersInsert("new", "", "new.deleted_at IS NULL")};
      END;
      ${inPlace("status", "UPDATE document_filters SET v = new.status WHERE document_id = new.id AND k = 's'")}
      ${inPlace("lang", `DELETE FROM document_filters WHERE document_id = new.id AND k = 'l';\n        ${filtersInsert("new", "", "1", "l")}`)}
      ${inPlace("tags", `DELETE FROM document_filters WHERE document_id = new.id AND k = 't';\n        ${filtersInsert("new", "", "1", "t")}`)}
      ${ORDER_COLUMNS.map((c) => inPlace(c, `UPDATE document_filters SET ${c} = new.${c} WHERE document_id = new.id`)).join("\n      ")}
      CREATE TRIGGER documents_filters_delete AFTER DELETE ON documents BEGIN
        DELETE FROM document_filters WHERE document_id = old.id;
      END;
    `,
  },
  {
    // One chunk's vector to drop (DELETE /v1/chunk/{id}; document_id is then its document's). The
    // route used to wait for LanceDB's delete, queued behind every other write to the table:
    // 1.7 s after a restart at 150,000 rows, while SQLite had hidden the chunk already; and a
    // crash or a failed delete left the vector for good.
    id: "documents-010",
    sql: `ALTER TABLE vector_drops ADD COLUMN chunk_id TEXT;`,
  },
  {
    // filename_lc reads the final sigma as σ (fields.ts filenameKey): names stored with ς are
    // folded the same way, or a search typed with σ would keep missing them. The in-place
    // trigger of documents-009 carries the new value into document_filters.
    id: "documents-011",
    sql: `UPDATE documents SET filename_lc = replace(filename_lc, 'ς', 'σ') WHERE instr(filename_lc, 'ς') > 0;`,
  },
];
