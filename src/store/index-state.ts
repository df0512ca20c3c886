/**
 * The durable record of which LanceDB table answers searches (and which embedding model built
 * it), and of the rebuild in progress when the configured embedding model changed. One row
 * (migration ingest-index-state-001), so every transition below is one SQLite statement and a
 * crash leaves either the old or the new state, never a mix.
 *
 *   (none) --recordActive--> active
 *   active --beginBuild(X)--> active + building X   (progress: cursor, done, total)
 *   building --recordProgress--> building           (resume point after a crash)
 *   building --completeBuild--> active := X, retired := old table (dropped afterwards)
 *   building --abandonBuild--> active, retired := the partial table
 */
import type { Db } from "./db.ts";

export interface IndexTarget {
  embedderId: string;
  tableName: string;
}

export interface IndexState {
  active: IndexTarget;
  building?: IndexTarget;
  /** Last chunk id (chunks are walked in id order) already written to the building table. */
  cursor: string;
  done: number;
  total: number;
  startedAt?: number;
  finishedAt?: number;
  /** A table no longer used for searches, still to be dropped. */
  retired?: string;
}

interface Row {
  active_embedder: string;
  active_table: string;
  building_embedder: string | null;
  building_table: string | null;
  cursor: string;
  done: number;
  total: number;
  started_at: number | null;
  finished_at: number | null;
  retired_table: string | null;
}

export function readIndexState(db: Db): IndexState | undefined {
  const r = db.query<Row, []>("SELECT * FROM index_state WHERE id = 1").get();
  if (!r) return undefined;
  return {
    active: { embedderId: r.active_embedder, tableName: r.active_table },
    ...(r.building_embedder && r.building_table ? { building: { embedderId: r.building_embedder, tableName: r.building_table } } : {}),
    cursor: r.cursor,
    done: r.done,
    total: r.total,
    ...(r.started_at != null ? { startedAt: r.started_at } : {}),
    ...(r.finished_at != null ? { finishedAt: r.finished_at } : {}),
    ...(r.retired_table ? { retired: r.retired_table } : {}),
  };
}

/** First record (fresh install or a data directory from before this table existed). */
export function recordActive(db: Db, t: IndexTarget, now: number): void {
  db.query(
    `INSERT INTO index_state (id, active_embedder, active_table, updated_at) VALUES (1, $e, $t, $now)
     ON CONFLICT (id) DO UPDATE SET active_embedder = $e, active_table = $t, building_embedder = NULL,
       building_table = NULL, cursor = '', done = 0, total = 0, updated_at = $now`,
  ).run({ e: t.embedderId, t: t.tableName, now });
}

/**
 * Starts a rebuild into `t`. A rebuild already heading for the same table keeps its cursor
 * (resume); one heading elsewhere is replaced and its partial table retired.
 */
export function beginBuild(db: Db, t: IndexTarget, total: number, now: number): IndexState {
  db.transaction(() => {
    const s = readIndexState(db);
    if (!s) throw new Error("index_state has no active table");
    if (s.building?.tableName === t.tableName) return;
    const retired = s.building && s.building.tableName !== s.active.tableName ? s.building.tableName : s.retired ?? null;
    db.query(
      `UPDATE index_state SET building_embedder = $e, building_table = $t, cursor = '', done = 0, total = $total,
         started_at = $now, finished_at = NULL, retired_table = $retired, updated_at = $now WHERE id = 1`,
    ).run({ e: t.embedderId, t: t.tableName, total, now, retired });
  }).immediate();
  return readIndexState(db)!;
}

export function recordProgress(db: Db, cursor: string, done: number, total: number, now: number): void {
  db.query("UPDATE index_state SET cursor = $cursor, done = $done, total = $total, updated_at = $now WHERE id = 1 AND building_table IS NOT NULL")
    .run({ cursor, done, total, now });
}

/** The switch: the building table becomes the active one in one statement; the old one is retired. */
export function completeBuild(db: Db, done: number, now: number): IndexState {
  const changed = db.query(
    `UPDATE index_state SET retired_table = active_table, active_embedder = building_embedder, active_table = building_table,
       building_embedder = NULL, building_table = NULL, cursor = '', done = $done, total = $done, finished_at = $now, updated_at = $now
     WHERE id = 1 AND building_table IS NOT NULL`,
  ).run({ done, now }).changes;
  if (!changed) throw new Error("no rebuild to complete");
  return readIndexState(db)!;
}

/** The configured model went back to the active one: the partial table is retired. */
export function abandonBuild(db: Db, now: number): IndexState {
  db.query(
    `UPDATE index_state SET retired_table = CASE WHEN building_table = active_table THEN retired_table ELSE building_table END,
       building_embedder = NULL, building_table = NULL, cursor = '', done = 0, total = 0, updated_at = $now
     WHERE id = 1 AND building_table IS NOT NULL`,
  ).run({ now });
  return readIndexState(db)!;
}

export function clearRetired(db: Db, tableName: string, now: number): void {
  db.query("UPDATE index_state SET retired_table = NULL, updated_at = $now WHERE id = 1 AND retired_table = $t").run({ t: tableName, now });
}
