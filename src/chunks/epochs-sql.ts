/**
 * chunk_epochs counts, per organization, the writes that can change what its chunk search
 * returns: chunk rows (metadata, pages, liveness, doc_seq) and the document columns that decide
 * whether a chunk set is live (status, generation, deletion, corpus). The search cache keys its
 * entries by the organization's counter, read inside the search's own snapshot. Bulk writes
 * (bulk.ts) bump once per chunk set instead of per row.
 */
const orgKey = (col: string) => `COALESCE((SELECT o.rowid FROM orgs o WHERE o.id = ${col}), 0)`;

export const bump = (org: string, when = "1") =>
  `INSERT INTO chunk_epochs (org_key, v) SELECT ${orgKey(org)}, 1 WHERE ${when} ON CONFLICT (org_key) DO UPDATE SET v = v + 1;`;

export const EPOCH_TRIGGERS = `
      CREATE TRIGGER chunks_epoch_ins AFTER INSERT ON chunks WHEN NOT EXISTS (SELECT 1 FROM chunk_bulk) BEGIN
        ${bump("NEW.org_id")}
      END;
      CREATE TRIGGER chunks_epoch_upd AFTER UPDATE OF org_id, metadata, pages, first_page, deleted_at, doc_seq, generation, document_id ON chunks BEGIN
        ${bump("NEW.org_id")}
        ${bump("OLD.org_id", "OLD.org_id IS NOT NEW.org_id")}
      END;
      CREATE TRIGGER chunks_epoch_del AFTER DELETE ON chunks BEGIN
        ${bump("OLD.org_id")}
      END;
      CREATE TRIGGER documents_epoch_ins AFTER INSERT ON documents BEGIN
        ${bump("NEW.org_id")}
      END;
      CREATE TRIGGER documents_epoch_upd AFTER UPDATE OF org_id, corpus_id, status, generation, deleted_at ON documents BEGIN
        ${bump("NEW.org_id")}
        ${bump("OLD.org_id", "OLD.org_id IS NOT NEW.org_id")}
      END;
      CREATE TRIGGER documents_epoch_del AFTER DELETE ON documents BEGIN
        ${bump("OLD.org_id")}
      END;
`;
