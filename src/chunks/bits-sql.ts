import { TERM, treeOf } from "./terms.ts";

/**
 * The metadata term index as bitmaps: chunk_bits holds, per (organization, term, chunk set,
 * word), a 64-bit word whose bit b says "chunk rowid word*64+b carries the term". A chunk set's
 * rows are written in one transaction, so its rowids are nearly contiguous and a term common to
 * a document costs about one row per 64 chunks. Intersecting terms is then a merge of words
 * and an AND per word instead of a probe per chunk; n is the word's popcount, so a one-term
 * match is counted per document by a SQL sum over the index. Pages are terms too ('g:<page>').
 * Bits exist only while the chunk is undeleted. Words are keyed by chunk rowid: chunks must
 * never be renumbered (VACUUM INTO-style copies) without rebuilding chunk_bits.
 *
 * The update and delete triggers in force are those of chunks-007 (bits-sql-007.ts); this file
 * holds what the current code still builds from: the insert trigger, bulk writes, the rebuild.
 */
const orgKey = (col: string) => `COALESCE((SELECT o.rowid FROM orgs o WHERE o.id = ${col}), 0)`;

/**
 * The terms of chunk `r`: its metadata's (terms.ts) and one per page of its span, 'g:<page>',
 * so the page filter is a term like any other. Malformed JSON counts as none.
 */
const termsOf = (r: string) => `
          SELECT ${TERM} AS term FROM ${treeOf(`${r}.metadata`)}
          UNION ALL SELECT 'g:' || p.value FROM json_each(CASE WHEN json_valid(${r}.pages) THEN ${r}.pages ELSE '[]' END) p
            WHERE p.type = 'integer'`;

/** Sets the bits of chunk `r` (NEW or OLD), when it is live. */
const setBits = (r: string, seq: string) => `
        INSERT INTO chunk_bits (org_key, term, doc_seq, word, bits, n)
          SELECT ${orgKey(`${r}.org_id`)}, term, ${seq}, ${r}.rowid >> 6, 1 << (${r}.rowid & 63), 1
          FROM (${termsOf(r)}) WHERE ${r}.deleted_at IS NULL AND ${seq} IS NOT NULL AND term IS NOT NULL
          ON CONFLICT (org_key, term, doc_seq, word) DO UPDATE
            SET n = n + (bits & excluded.bits = 0), bits = bits | excluded.bits;`;

/** doc_seq of a chunk set (org, document, generation): the existing one, else the next number. */
export const DOC_SEQ = (org: string, doc: string, gen: string) => `COALESCE(
          (SELECT s.doc_seq FROM chunks s WHERE s.org_id = ${org} AND s.document_id = ${doc}
             AND s.generation = ${gen} AND s.doc_seq IS NOT NULL LIMIT 1),
          (SELECT COALESCE(MAX(m.doc_seq), 0) + 1 FROM chunks m))`;

/**
 * doc_seq assignment is unchanged from chunks-002 (see migrations.ts); the insert trigger then
 * reads the assigned number back. It stands aside while bulk.ts writes a chunk set (a row in
 * chunk_bulk), which does both for the whole set at once.
 */
export const INSERT_TRIGGER = `
      CREATE TRIGGER chunks_ins AFTER INSERT ON chunks WHEN NOT EXISTS (SELECT 1 FROM chunk_bulk) BEGIN
        UPDATE chunks SET doc_seq = COALESCE(NEW.doc_seq, ${DOC_SEQ("NEW.org_id", "NEW.document_id", "NEW.generation")})
        WHERE rowid = NEW.rowid;
        ${setBits("NEW", "(SELECT c.doc_seq FROM chunks c WHERE c.rowid = NEW.rowid)")}
      END;
`;

/**
 * The bits of the live chunks with rowids $lo..$hi in chunk set $seq, set by one grouped
 * statement (a sum of distinct single bits is their OR). Those rowids are new, so their bits are
 * not yet in any word: the counts add up.
 */
export const BITS_OF_RANGE = `
      INSERT INTO chunk_bits (org_key, term, doc_seq, word, bits, n)
        SELECT ${orgKey("$org")}, term, $seq, rid >> 6, sum(DISTINCT 1 << (rid & 63)), count(DISTINCT rid) FROM (
          SELECT ${TERM} AS term, c.rowid AS rid
            FROM chunks c, ${treeOf("c.metadata")} WHERE c.rowid BETWEEN $lo AND $hi AND c.doc_seq = $seq AND c.deleted_at IS NULL
          UNION ALL SELECT 'g:' || p.value, c.rowid
            FROM chunks c, json_each(CASE WHEN json_valid(c.pages) THEN c.pages ELSE '[]' END) p
            WHERE c.rowid BETWEEN $lo AND $hi AND c.doc_seq = $seq AND c.deleted_at IS NULL AND p.type = 'integer')
        WHERE term IS NOT NULL GROUP BY term, rid >> 6
        ON CONFLICT (org_key, term, doc_seq, word) DO UPDATE SET bits = bits | excluded.bits, n = n + excluded.n;
`;

/** Builds chunk_bits from the chunks table. A sum of distinct single bits is their OR (and cannot overflow). */
export const BITS_REBUILD = `
      DELETE FROM chunk_bits;
      INSERT INTO chunk_bits (org_key, term, doc_seq, word, bits, n)
        SELECT ${orgKey("org_id")}, term, doc_seq, rid >> 6, sum(DISTINCT 1 << (rid & 63)), count(DISTINCT rid) FROM (
          SELECT c.org_id, ${TERM} AS term, c.doc_seq, c.rowid AS rid
            FROM chunks c, ${treeOf("c.metadata")} WHERE c.deleted_at IS NULL
          UNION ALL SELECT c.org_id, 'g:' || p.value, c.doc_seq, c.rowid
            FROM chunks c, json_each(CASE WHEN json_valid(c.pages) THEN c.pages ELSE '[]' END) p
            WHERE c.deleted_at IS NULL AND p.type = 'integer')
        WHERE term IS NOT NULL AND doc_seq IS NOT NULL GROUP BY org_id, term, doc_seq, rid >> 6;
`;
