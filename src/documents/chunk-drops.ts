/**
 * Chunks of a deleted corpus' documents, soft-deleted in the background in small transactions.
 *
 * The corpus deletion transaction used to mark every chunk deleted itself. Each such row runs the
 * metadata index triggers (chunks/bits-sql.ts: clear the chunk's bits, bump the search epoch),
 * about 54 µs a chunk, so a corpus of 500,000 chunks held bun:sqlite, and with it the event
 * loop of the whole server, for half a minute: every request of every organization waited. One
 * drop per document is recorded here instead, when the document is marked deleted (in the
 * background too: documents/cascade.ts markCorpusDocuments), and this loop carries them out
 * CHUNKS_PER_TURN chunks per transaction, letting requests in between.
 *
 * Nothing reads a chunk as live on its own deleted_at: every reader also requires its document
 * to be live, and its corpus (store/live-chunks.ts for retrieval and citations, chunks/query.ts's
 * live sets, the chunk GET/PATCH/DELETE check, reembed.ts), and the corpus is marked deleted in
 * the deletion transaction, so the answers do not change while the drops are pending. A stop or
 * a crash leaves the rest of the list for the next start.
 */
import type { Logger } from "../context.ts";
import type { Db } from "../store/db.ts";
import { nextTurn, startDrainLoop, type DrainLoop } from "../store/drain-loop.ts";

/**
 * Chunks marked deleted per transaction: their index triggers cost about 54 µs a chunk, so a
 * turn holds the event loop for a few tens of milliseconds (the price of letting requests in
 * between; one corpus-wide UPDATE was cheaper per chunk but held it for the whole corpus).
 */
export const CHUNKS_PER_TURN = 500;
const POLL_MS = 2000;

export type ChunkDrops = DrainLoop;

/** One transaction's worth of drops; returns how many chunks it marked and whether drops remain. */
export function dropChunksTurn(db: Db, limit = CHUNKS_PER_TURN): { chunks: number; more: boolean } {
  return db.transaction(() => {
    const rows = db
      .query<{ id: number; org_id: string; document_id: string; created_at: number }, [number]>(
        "SELECT id, org_id, document_id, created_at FROM chunk_drops ORDER BY id LIMIT ?",
      )
      .all(Math.max(1, Math.min(limit, 500)));
    // The rowids first, then an UPDATE by rowid only when there are any. One UPDATE … WHERE rowid
    // IN (SELECT … LIMIT ?) per document cost 1.7 ms even when it matched nothing (an ephemeral
    // table and a Bloom filter per run): a turn of 500 documents of few or no chunks held the
    // event loop for 0.9 s. Selecting costs 0.03 ms a document.
    const live = db.query<[number], [string, string, number]>(
      "SELECT rowid FROM chunks WHERE org_id = ? AND document_id = ? AND deleted_at IS NULL LIMIT ?",
    );
    const mark = db.query<unknown, [number, string]>("UPDATE chunks SET deleted_at = ? WHERE rowid IN (SELECT value FROM json_each(?))");
    const forget = db.query<unknown, [number]>("DELETE FROM chunk_drops WHERE id = ?");
    let chunks = 0;
    let finished = 0;
    for (const r of rows) {
      const left = limit - chunks;
      const ids = live.values(r.org_id, r.document_id, left).map((v) => v[0]);
      if (ids.length) mark.run(r.created_at, JSON.stringify(ids));
      chunks += ids.length;
      if (ids.length < left) {
        forget.run(r.id);
        finished++;
      } else break; // the budget ran out on this document: it stays for the next turn
    }
    return { chunks, more: rows.length > finished || rows.length === 500 };
  }).immediate();
}

export function startChunkDrops(db: Db, log: Logger): ChunkDrops {
  return startDrainLoop({
    pass: async (closed) => {
      while (!closed() && dropChunksTurn(db).more) {
        // Requests that arrived during the transaction run before the next one.
        await nextTurn();
      }
    },
    pollMs: POLL_MS,
    log,
    failing: "could not mark the chunks of deleted documents; retrying",
    recovered: "chunk drops carried out again",
    // Not inside the caller's turn: the corpus deletion answers first.
    deferred: true,
  });
}
