/**
 * Previews still to render, kept in SQLite so that a stop or a crash does not lose them: a row is
 * written in the transaction that makes a PDF READY (job-store commitReadyMany), moved on after
 * each finished batch of pages, and removed when the pages are all rendered, the budget cut them,
 * or the document changed. What is left at a start is resumed from `next_page` (scheduler.ts).
 * `starts` counts renderings begun since the last finished batch, so a PDF that brings the server
 * (or its worker) down while it renders is given up after MAX_PREVIEW_STARTS starts without
 * progress, instead of crashing every start; unrelated restarts during a long rendering that
 * moves on never add up to that, nor do restarts while the rendering waits behind parsing in
 * the pool: a rendering counts once a worker begins it.
 */
import type { Db } from "../store/db.ts";
import { mediaType } from "./formats.ts";

export const MAX_PREVIEW_STARTS = 3;

/**
 * `next_page` of a job written for a PDF made READY by a build that kept no record of its
 * previews (migration ingest-previews-002): the renderer finds where its tiles stop.
 */
export const UNKNOWN_NEXT_PAGE = -1;

export interface PreviewJobRow {
  document_id: string;
  org_id: string;
  generation: number;
  next_page: number;
  starts: number;
}

type Key = { orgId: string; documentId: string; generation: number };

/** Only PDFs get page previews, and only when their pages were counted. */
export const wantsPreviews = (contentType: string, nbPages: number) => mediaType(contentType) === "application/pdf" && nbPages > 0;

/** Inside the READY transaction: a new generation's row replaces an older one's. */
export function enqueuePreviews(db: Db, p: Key, now: number): void {
  db.query(
    `INSERT OR REPLACE INTO preview_jobs (document_id, org_id, generation, next_page, starts, created_at) VALUES (?, ?, ?, 0, 0, ?)`,
  ).run(p.documentId, p.orgId, p.generation, now);
}

/**
 * A rendering is about to be queued: from which page, and how many renderings began since the
 * last finished batch (null: the row is gone, nothing to do). Nothing is counted yet: it may
 * wait behind parsing in the pool, and a stop meanwhile says nothing about the PDF.
 */
export function previewProgress(db: Db, p: Key): { nextPage: number; starts: number } | null {
  const row = db
    .query<{ next_page: number; starts: number }, [string, string, number]>(
      "SELECT next_page, starts FROM preview_jobs WHERE document_id = ? AND org_id = ? AND generation = ?",
    )
    .get(p.documentId, p.orgId, p.generation);
  return row ? { nextPage: row.next_page, starts: row.starts } : null;
}

/** A worker began rendering the document's pages: this start counts towards giving up. */
export function countPreviewStart(db: Db, p: Key): void {
  db.query("UPDATE preview_jobs SET starts = starts + 1 WHERE document_id = ? AND org_id = ? AND generation = ?").run(p.documentId, p.orgId, p.generation);
}

/**
 * Pages before `nextPage` have both their tiles on disk. Progress resets the count of starts to
 * this one: only renderings interrupted without finishing a batch count towards giving up.
 */
export function advancePreviews(db: Db, p: Key, nextPage: number): void {
  db.query("UPDATE preview_jobs SET next_page = ?, starts = 1 WHERE document_id = ? AND org_id = ? AND generation = ?").run(nextPage, p.documentId, p.orgId, p.generation);
}

/** Done with this generation's previews (never touches a newer generation's row). */
export function endPreviews(db: Db, p: Key): void {
  db.query("DELETE FROM preview_jobs WHERE document_id = ? AND org_id = ? AND generation = ?").run(p.documentId, p.orgId, p.generation);
}

export function pendingPreviews(db: Db): PreviewJobRow[] {
  return db.query<PreviewJobRow, []>("SELECT document_id, org_id, generation, next_page, starts FROM preview_jobs ORDER BY created_at, document_id").all();
}
