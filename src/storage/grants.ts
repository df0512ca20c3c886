import type { Db } from "../store/db.ts";
import { liveCorpus } from "../corpus/drops.ts";
import type { PurgeRule } from "../store/purge.ts";

/**
 * Upload grants: one row per issued PUT URL. A PUT claims its grant before writing, so exactly
 * one PUT of a URL writes at a time and a completed one spends it for good (completed_at): a
 * replay, a concurrent loser, or a URL whose document moved on gets 412. A failed write releases
 * its claim: nothing was stored, so the URL may be retried until it expires.
 *
 * The claim itself lives in memory (`writing`, per database): one server owns a data directory,
 * so a write in flight is a write of this process, and a claim cannot outlive its write the way
 * a row could when the release itself fails (a full disk refusing the UPDATE would have left the
 * URL refused with 412, and commit waiting for an upload that was over, until a restart).
 * claimed_at only records when the last claim was taken (one left by a crash binds nothing,
 * so nothing needs releasing at start, which a full or read-only disk would refuse anyway).
 */
const writing = new WeakMap<Db, Set<string>>();
const writingIn = (db: Db) => {
  let w = writing.get(db);
  if (!w) writing.set(db, (w = new Set()));
  return w;
};
export interface NewGrant {
  nonce: string;
  orgId: string;
  documentId: string;
  generation: number;
  blobKey: string;
  contentType: string;
  expiresAt: number;
  createdAt: number;
}

export function insertGrant(db: Db, g: NewGrant): void {
  db.query(
    `INSERT INTO upload_grants (nonce, org_id, document_id, generation, blob_key, content_type, expires_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(g.nonce, g.orgId, g.documentId, g.generation, g.blobKey, g.contentType, g.expiresAt, g.createdAt);
}

/**
 * Claims the grant for one writer. Succeeds only when it is unclaimed, bound to this key and
 * its document is live, still AWAITING_UPLOAD and of the grant's generation (a URL cannot
 * overwrite content that was committed or replaced since it was issued).
 */
export function claimGrant(db: Db, nonce: string, key: string, now: number): boolean {
  const w = writingIn(db);
  if (w.has(nonce)) return false;
  const r = db
    .query(
      `UPDATE upload_grants SET claimed_at = ?
       WHERE nonce = ? AND blob_key = ? AND completed_at IS NULL
         AND EXISTS (SELECT 1 FROM documents d WHERE d.id = upload_grants.document_id AND d.org_id = upload_grants.org_id
                     AND d.deleted_at IS NULL AND d.status = 'AWAITING_UPLOAD' AND d.generation = upload_grants.generation
                     AND ${liveCorpus("d")})`,
    )
    .run(now, nonce, key);
  if (r.changes !== 1) return false;
  w.add(nonce); // in the same synchronous turn as the check: no other PUT can interleave
  return true;
}

/** Ends a write that stored nothing (or whose completion could not be recorded): the URL may be retried. */
export function releaseGrant(db: Db, nonce: string): void {
  writingIn(db).delete(nonce);
  try {
    db.query("UPDATE upload_grants SET claimed_at = NULL WHERE nonce = ? AND completed_at IS NULL").run(nonce);
  } catch {
    // Only the diagnostic column: the claim that matters is gone from memory.
  }
}

/**
 * Spends the grant for good, with what the route learnt of the bytes: size, SHA-256 and, when it
 * judged them while they were in memory, its verdict on their type (null: they are what the grant
 * declared). Throws if that cannot be recorded; the caller then releases it.
 */
export function completeGrant(db: Db, nonce: string, size: number, sha256: string, now: number, verdict?: { reason: string | null }): void {
  db.query("UPDATE upload_grants SET completed_at = ?, size = ?, sha256 = ?, inspected = ?, sniff_reason = ? WHERE nonce = ?").run(
    now,
    size,
    sha256,
    verdict ? 1 : null,
    verdict?.reason ?? null,
    nonce,
  );
  writingIn(db).delete(nonce);
}

/**
 * Size and SHA-256 (hex) of what the completed PUT of the document's generation wrote, if one
 * did. A URL is single use and bound to its generation, so that PUT is the object's only writer.
 */
export interface UploadedObject {
  size: number;
  sha256: string;
  /** The type the URL was bound to, as declared. */
  contentType: string;
  /** The route's verdict on the bytes against that type, when it judged them (reason null: fine). */
  verdict: { reason: string | null } | null;
}

export function uploadedObject(db: Db, orgId: string, documentId: string, generation: number): UploadedObject | null {
  const row = db
    .query<{ size: number; sha256: string; content_type: string; inspected: number | null; sniff_reason: string | null }, [string, string, number]>(
      `SELECT size, sha256, content_type, inspected, sniff_reason FROM upload_grants WHERE org_id = ? AND document_id = ? AND generation = ?
       AND completed_at IS NOT NULL AND sha256 IS NOT NULL ORDER BY completed_at DESC LIMIT 1`,
    )
    .get(orgId, documentId, generation);
  if (!row) return null;
  const verdict = row.inspected === 1 ? { reason: row.sniff_reason } : null;
  return { size: row.size, sha256: row.sha256, contentType: row.content_type, verdict };
}

/** True while a PUT to the document's current generation is being written. */
export function uploadInProgress(db: Db, orgId: string, documentId: string, generation: number): boolean {
  const w = writingIn(db);
  if (!w.size) return false;
  return db
    .query<{ nonce: string }, [string, string, number]>(
      `SELECT nonce FROM upload_grants WHERE org_id = ? AND document_id = ? AND generation = ?
       AND claimed_at IS NOT NULL AND completed_at IS NULL`,
    )
    .all(orgId, documentId, generation)
    .some((g) => w.has(g.nonce));
}

/**
 * When the last upload URL of the document's current generation stopped working, if every one
 * has expired unused; undefined while one may still be used (or none was ever issued).
 */
export function uploadUrlsExpiredAt(db: Db, orgId: string, documentId: string, generation: number, now: number): number | undefined {
  const r = db
    .query<{ n: number; live: number; last: number | null }, [number, string, string, number]>(
      `SELECT count(*) AS n, count(CASE WHEN expires_at > ? THEN 1 END) AS live, max(expires_at) AS last
       FROM upload_grants WHERE org_id = ? AND document_id = ? AND generation = ? AND completed_at IS NULL`,
    )
    .get(now, orgId, documentId, generation)!;
  return r.n > 0 && r.live === 0 && r.last !== null ? r.last : undefined;
}

/** Unused URLs of a document stop working (deletion). */
export function revokeGrants(db: Db, orgId: string, documentId: string): void {
  db.query("DELETE FROM upload_grants WHERE org_id = ? AND document_id = ? AND claimed_at IS NULL AND completed_at IS NULL").run(orgId, documentId);
}

/**
 * The live document an object key belongs to (`orgs/<org>/docs/<doc>/…`), with its current
 * generation and filename; null when the key names none or the document was deleted.
 */
export function keyDocument(db: Db, key: string): { generation: number; filename: string } | null {
  const m = /^orgs\/([0-9a-f-]{36})\/docs\/([0-9a-f-]{36})\//.exec(key);
  if (!m) return null;
  return db
    .query<{ generation: number; filename: string }, [string, string]>(
      `SELECT generation, filename FROM documents d WHERE d.org_id = ? AND d.id = ? AND d.deleted_at IS NULL AND ${liveCorpus("d")}`,
    )
    .get(m[1]!, m[2]!);
}

/**
 * An upload grant goes once its URL has expired (and the margin passed) and its document has moved
 * on from the generation it was issued for. Until the URL expires its row is the single-use record
 * (a replay is refused 412 because the row says completed; a missing row would be refused too, as
 * no claim can succeed, but the rule does not lean on that). After that the PUT route refuses the
 * URL on its signature alone. Commit and the document's answers read the grants of the current
 * generation while the document is AWAITING_UPLOAD (what the PUT wrote, whether a write is in
 * progress, when the last URL expired unused), so those stay as long as the document waits; a
 * document leaves AWAITING_UPLOAD at a generation for good (new content is a new generation).
 */
export const SPENT_GRANTS: PurgeRule = {
  table: "upload_grants",
  spent: `expires_at <= $cutoff AND NOT EXISTS (
    SELECT 1 FROM documents d WHERE d.id = upload_grants.document_id AND d.org_id = upload_grants.org_id
      AND d.generation = upload_grants.generation AND d.status = 'AWAITING_UPLOAD' AND d.deleted_at IS NULL)`,
};
