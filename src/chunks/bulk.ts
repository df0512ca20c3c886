import type { Statement } from "bun:sqlite";
import type { Db } from "../store/db.ts";
import { BITS_OF_RANGE, DOC_SEQ } from "./bits-sql.ts";
import { bump } from "./epochs-sql.ts";

/**
 * Writing a whole chunk set (one document generation) at once, for ingestion's commit. Row by
 * row, the insert trigger (bits-sql.ts) looks up the set's doc_seq, rewrites the row to store
 * it, and upserts one index word per term of the chunk. Here the number is looked up once and
 * written with the rows, and the index words of the set come from one grouped statement. A row
 * in chunk_bulk, inside this transaction only, tells the trigger to stand aside; the result is
 * the same as inserting the rows one by one (the organization's search epoch is bumped once) (bits.test.ts compares both with a rebuild).
 */
export interface NewChunk {
  id: string;
  seq: number;
  /** 1-based, ascending; empty for a chunk tied to no page. */
  pages: number[];
  hash: string;
  metadata: Record<string, unknown>;
  body: string | null;
}

export interface ChunkSet {
  orgId: string;
  corpusId: string;
  documentId: string;
  generation: number;
  createdAt: number;
}

/** Statements live as long as the connection: an INSERT INTO chunks compiles its triggers when prepared. */
const prepared = new WeakMap<Db, Record<"seq" | "set" | "bits" | "epoch" | "on" | "off", Statement>>();

/**
 * Rows per INSERT statement. chunks has row triggers, so each INSERT runs as a statement
 * transaction that copies every existing page it changes (the leaves of the table and of its six
 * indexes) to the sub-journal; inside the caller's transaction, where this is a savepoint, those
 * copies are kept until the savepoint ends, so row by row they grew with the set. 64 rows per
 * statement took the READY commit of a 4,000-chunk, 40 MB document from 644–1,111 ms to
 * 348–681 ms, and of 4,000 short chunks from 789 to 159 ms (bun scripts/bench-commit-big.ts, a
 * loaded machine). 64 rows bind 832 values.
 */
export const ROWS_PER_INSERT = 64;
const COLS = 13;
const inserts = new WeakMap<Db, Map<number, Statement>>();

/** The INSERT of `rows` rows (1..ROWS_PER_INSERT), returning their rowids; kept per connection like the rest. */
function insertOf(db: Db, rows: number): Statement {
  let m = inserts.get(db);
  if (!m) inserts.set(db, (m = new Map()));
  let st = m.get(rows);
  if (!st) {
    const one = `(${Array(COLS).fill("?").join(", ")})`;
    st = db.prepare(
      `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, first_page, hash, metadata, body, created_at, doc_seq)
       VALUES ${Array(rows).fill(one).join(", ")} RETURNING rowid`,
    );
    m.set(rows, st);
  }
  return st;
}

function statements(db: Db) {
  let s = prepared.get(db);
  if (!s) {
    s = {
      seq: db.prepare(`SELECT ${DOC_SEQ("$org", "$doc", "$gen")} AS s`),
      set: db.prepare("INSERT OR IGNORE INTO chunk_sets (doc_seq, org_id, document_id, generation) VALUES (?, ?, ?, ?)"),
      bits: db.prepare(BITS_OF_RANGE),
      epoch: db.prepare(bump("$org")),
      on: db.prepare("INSERT INTO chunk_bulk (id) VALUES (1)"),
      off: db.prepare("DELETE FROM chunk_bulk"),
    };
    prepared.set(db, s);
  }
  return s;
}

/** Inserts the chunks of one set with their index, in a transaction (a savepoint inside the caller's). */
export function insertChunkSet(db: Db, set: ChunkSet, chunks: NewChunk[]): void {
  insertChunkSets(db, [{ set, chunks }]);
}

/**
 * Several sets in one savepoint (a batch of ingested documents): the trigger switch is flipped
 * once and each organization's search epoch bumped once for all of them, which is all a reader
 * can tell apart, since they commit together.
 */
export function insertChunkSets(db: Db, sets: { set: ChunkSet; chunks: NewChunk[] }[]): void {
  const live = sets.filter((s) => s.chunks.length > 0);
  if (!live.length) return;
  const st = statements(db);
  db.transaction(() => {
    st.on.run();
    const orgs = new Set<string>();
    for (const { set, chunks } of live) {
      const seq = (st.seq.get({ org: set.orgId, doc: set.documentId, gen: set.generation }) as { s: number }).s;
      let lo = Infinity;
      let hi = -Infinity;
      for (let first = 0; first < chunks.length; first += ROWS_PER_INSERT) {
        const part = chunks.slice(first, first + ROWS_PER_INSERT);
        const values: (string | number | null)[] = new Array(part.length * COLS);
        let v = 0;
        for (const c of part) {
          values[v++] = c.id; values[v++] = set.orgId; values[v++] = set.corpusId; values[v++] = set.documentId;
          values[v++] = set.generation; values[v++] = c.seq; values[v++] = JSON.stringify(c.pages); values[v++] = c.pages[0] ?? 0;
          values[v++] = c.hash; values[v++] = JSON.stringify(c.metadata); values[v++] = c.body; values[v++] = set.createdAt; values[v++] = seq;
        }
        for (const [r] of insertOf(db, part.length).values(...values) as [number | bigint][]) {
          const rid = Number(r);
          lo = Math.min(lo, rid);
          hi = Math.max(hi, rid);
        }
      }
      st.set.run(seq, set.orgId, set.documentId, set.generation);
      st.bits.run({ org: set.orgId, seq, lo, hi });
      orgs.add(set.orgId);
    }
    for (const org of orgs) st.epoch.run({ org });
    st.off.run();
  })();
}
