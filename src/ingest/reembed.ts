/**
 * Re-embedding after the configured embedding model changed.
 *
 * At start the configured model is compared with the model that built the active table
 * (index_state). When they differ, searches keep reading the old table while every live chunk
 * is embedded again into the new model's table, in id order, batch by batch, yielding to the
 * event loop between batches; ingestion writes reach both tables meanwhile (SwitchingIndex).
 * When the walk ends, one SQLite UPDATE and one pointer swap make the new table the active one
 * and the old one is dropped after a grace period.
 *
 * What is re-embedded is the text the old table indexed (its `text` column), not chunks.body:
 * a PATCHed body is not re-indexed (spec: retrieval still finds a patched chunk by its old
 * text), and a model change must not silently change that. chunks.body is used only for a
 * chunk the old table lacks.
 *
 * Crash-safe: progress (a cursor over chunk ids) is recorded after each batch, and writes are
 * idempotent per chunk id, so a restart resumes where the last recorded batch ended.
 */
import type { Logger } from "../context.ts";
import type { ModelRegistry } from "../models/registry.ts";
import type { Db } from "../store/db.ts";
import { liveCorpus } from "../corpus/drops.ts";
import {
  abandonBuild, beginBuild, clearRetired, completeBuild, readIndexState, recordActive, recordProgress, type IndexState,
} from "../store/index-state.ts";
import { dropLanceTable, listLanceTables, openLanceIndex, tableNameFor } from "../store/lance.ts";
import { createSwitchingIndex, type Slot, type SwitchingIndex } from "../store/switching-index.ts";
import type { VectorRecord } from "../store/vector.ts";

export interface ReembedDeps {
  dir: string;
  db: Db;
  models: ModelRegistry;
  log: Logger;
  now: () => number;
  batch: number;
  pauseMs: number;
  /** How long the old table stays open after the switch for searches already under way. */
  graceMs?: number;
  /** Wait before retrying after a failed batch (a remote embedder that is down, a full disk). */
  retryMs?: number;
}

const GRACE_MS = 10_000;
const RETRY_MS = 30_000;
const LOG_EVERY_MS = 5_000;

/** Chunks that belong in an index: not deleted, of an undeleted document of a live corpus, of its current generation. */
const KEEP = `c.deleted_at IS NULL AND d.deleted_at IS NULL AND c.generation = d.generation AND ${liveCorpus("d")}`;
const FROM = "FROM chunks c JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id";

interface ChunkRow { id: string; org_id: string; corpus_id: string; document_id: string; generation: number; body: string | null }

export const countIndexable = (db: Db, after = ""): number =>
  db.query<{ n: number }, [string]>(`SELECT count(*) AS n ${FROM} WHERE c.id > ? AND ${KEEP}`).get(after)!.n;

const nextChunks = (db: Db, after: string, limit: number) =>
  db.query<ChunkRow, [string, number]>(
    `SELECT c.id, c.org_id, c.corpus_id, c.document_id, c.generation, c.body ${FROM} WHERE c.id > ? AND ${KEEP} ORDER BY c.id LIMIT ?`,
  ).all(after, limit);

const stillKept = (db: Db, ids: string[]): Set<string> =>
  new Set(db.query<{ id: string }, string[]>(`SELECT c.id ${FROM} WHERE c.id IN (${ids.map(() => "?").join(",")}) AND ${KEEP}`)
    .all(...ids).map((r) => r.id));

/** The index_state row, created on first use from what the data directory holds. */
async function initialState(d: ReembedDeps, configuredId: string): Promise<IndexState> {
  const existing = readIndexState(d.db);
  if (existing) return existing;
  const mine = tableNameFor(configuredId);
  const tables = (await listLanceTables(d.dir)).filter((t) => t.rows > 0);
  if (!tables.length || tables.some((t) => t.name === mine)) {
    recordActive(d.db, { embedderId: configuredId, tableName: mine }, d.now());
  } else {
    // A data directory from before index_state: its fullest table is the one searches used.
    const prev = tables.sort((a, b) => b.rows - a.rows)[0]!.name;
    const id = d.models.list().find((m) => m.role === "embedding" && tableNameFor(m.id) === prev)?.id ?? prev;
    recordActive(d.db, { embedderId: id, tableName: prev }, d.now());
  }
  return readIndexState(d.db)!;
}

const loadEmbedder = (models: ModelRegistry, id: string) => (models.has(id, "embedding") ? models.embedder(id) : undefined);

export async function openReembeddingIndex(d: ReembedDeps): Promise<SwitchingIndex> {
  const configured = d.models.embedder();
  const target = { embedderId: configured.id, tableName: tableNameFor(configured.id) };
  let state = await initialState(d, configured.id);
  if (state.retired) {
    await dropLanceTable(d.dir, state.retired);
    clearRetired(d.db, state.retired, d.now());
  }
  if (state.active.tableName === target.tableName) {
    if (state.building) {
      d.log.info("embedding model reverted: abandoning the partial rebuild", { building: state.building.embedderId });
      state = abandonBuild(d.db, d.now());
      if (state.retired) {
        await dropLanceTable(d.dir, state.retired);
        clearRetired(d.db, state.retired, d.now());
      }
    }
    const index = await openLanceIndex(d.dir, configured.id, configured.dims, { log: d.log });
    return createSwitchingIndex({ configuredId: configured.id, active: { embedderId: configured.id, index, embedder: configured }, progress: { done: state.done, total: state.total } });
  }

  const resume = state.building?.tableName === target.tableName;
  if (!resume) await dropLanceTable(d.dir, target.tableName); // leftovers of an older build are not trusted
  state = beginBuild(d.db, target, countIndexable(d.db), d.now());
  if (state.retired) {
    // A build for a third model was under way: its partial table goes.
    await dropLanceTable(d.dir, state.retired);
    clearRetired(d.db, state.retired, d.now());
  }
  const total = state.done + countIndexable(d.db, state.cursor);
  const oldEmbedder = loadEmbedder(d.models, state.active.embedderId);
  const active: Slot = {
    embedderId: state.active.embedderId,
    index: await openLanceIndex(d.dir, state.active.embedderId, oldEmbedder?.dims ?? configured.dims, { tableName: state.active.tableName, log: d.log }),
    embedder: oldEmbedder,
  };
  const building: Slot = { embedderId: configured.id, index: await openLanceIndex(d.dir, configured.id, configured.dims, { log: d.log }), embedder: configured };
  if (!oldEmbedder) d.log.error("the model of the active vector table is not installed: until the rebuild ends, searches use full text and the rebuilt part only", { model: state.active.embedderId });
  d.log.info(resume ? "resuming re-embedding" : "embedding model changed: re-embedding every chunk in the background",
    { from: state.active.embedderId, to: configured.id, done: state.done, total });

  let stopped = false;
  let wake: (() => void) | undefined;
  const nap = (ms: number) => new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    wake = () => { clearTimeout(t); r(); };
  });
  let retireTimer: ReturnType<typeof setTimeout> | undefined;
  let retiring: Promise<void> | undefined;
  let retiredSlot: Slot | undefined;

  const retire = async (old: Slot) => {
    await ix.release(old);
    await dropLanceTable(d.dir, old.index.tableName);
    clearRetired(d.db, old.index.tableName, d.now());
    d.log.info("old vector table dropped", { table: old.index.tableName });
  };

  let cursor = state.cursor;
  let done = state.done;
  const loop = async () => {
    let lastLog = Date.now();
    ix.setProgress(done, total);
    while (!stopped) {
      const rows = nextChunks(d.db, cursor, d.batch);
      if (!rows.length) break;
      const ids = rows.map((r) => r.id);
      const texts = await active.index.texts(ids);
      const text = (r: ChunkRow) => texts.get(r.id) ?? r.body ?? "";
      const vectors = await configured.embed(rows.map(text), "passage");
      const records: VectorRecord[] = rows.map((r, i) => ({
        chunkId: r.id, orgId: r.org_id, corpusId: r.corpus_id, documentId: r.document_id,
        generation: r.generation, text: text(r), vector: vectors[i]!,
      }));
      await building.index.add(records);
      // Every deletion path commits SQLite before touching the index: a chunk that died while
      // this batch was embedded is caught here and not left behind in the new table.
      const kept = stillKept(d.db, ids);
      for (const r of rows) if (!kept.has(r.id)) await building.index.deleteChunks(r.org_id, [r.id]);
      cursor = ids[ids.length - 1]!;
      done += rows.length;
      const shownTotal = Math.max(total, done);
      recordProgress(d.db, cursor, done, shownTotal, d.now());
      ix.setProgress(done, shownTotal);
      if (Date.now() - lastLog >= LOG_EVERY_MS) {
        lastLog = Date.now();
        d.log.info("re-embedding", { to: configured.id, done, total: shownTotal });
      }
      await nap(d.pauseMs);
    }
    if (stopped) return;
    // The switch: no await between the SQLite update and the pointer swap.
    completeBuild(d.db, done, d.now());
    const old = ix.promote();
    ix.setProgress(done, done);
    d.log.info("vector index switched to the new embedding model", { from: old.embedderId, to: configured.id, chunks: done });
    retiredSlot = old;
    retireTimer = setTimeout(() => {
      retireTimer = undefined;
      retiring = retire(old).catch((e) => d.log.error("dropping the old vector table failed", { error: String(e) }));
    }, d.graceMs ?? GRACE_MS);
  };

  const ix: SwitchingIndex = createSwitchingIndex({
    configuredId: configured.id,
    active,
    building,
    progress: { done: state.done, total },
    async beforeClose() {
      stopped = true;
      wake?.();
      await running;
      if (retireTimer) {
        clearTimeout(retireTimer);
        retireTimer = undefined;
        if (retiredSlot) await ix.release(retiredSlot); // dropped at next start (index_state.retired_table)
      }
      await retiring;
    },
  });
  // Progress is recorded per batch, so a retry (or the next start) carries on where it stopped.
  const running: Promise<void> = (async () => {
    await new Promise<void>((r) => setImmediate(r));
    while (!stopped) {
      try {
        return await loop();
      } catch (e) {
        d.log.error("re-embedding failed; retrying", { error: String(e), done, retryInMs: d.retryMs ?? RETRY_MS });
        await nap(d.retryMs ?? RETRY_MS);
      }
    }
  })();
  return ix;
}
