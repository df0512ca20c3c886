import type { Db } from "../store/db.ts";

/**
 * Upload grants: one row per issued PUT URL. The storage route claims a grant atomically
 * (a single UPDATE … WHERE claimed_at IS NULL) before writing, so exactly one PUT of a URL
 * can write; a replay, a concurrent loser, or a URL whose document moved on gets 412.
 * A failed write releases its claim: nothing was written, so the URL may be retried until it
 * expires. A successful write sets completed_at and the grant is spent for good.
 */
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
  const r = db
    .query(
      `UPDATE upload_grants SET claimed_at = ?
       WHERE nonce = ? AND blob_key = ? AND claimed_at IS NULL AND completed_at IS NULL
         AND EXISTS (SELECT 1 FROM documents d WHERE d.id = upload_grants.document_id AND d.org_id = upload_grants.org_id
                     AND d.deleted_at IS NULL AND d.status = 'AWAITING_UPLOAD' AND d.generation = upload_grants.generation)`,
    )
    .run(now, nonce, key);
  return r.changes === 1;
}

export function releaseGrant(db: Db, nonce: string): void {
  db.query("UPDATE upload_grants SET claimed_at = NULL WHERE nonce = ? AND completed_at IS NULL").run(nonce);
}

export function completeGrant(db: Db, nonce: string, size: number, sha256: string, now: number): void {
  db.query("UPDATE upload_grants SET completed_at = ?, size = ?, sha256 = ? WHERE nonce = ?").run(now, size, sha256, nonce);
}

/**
 * Size and SHA-256 (hex) of what the completed PUT of the document's generation wrote, if one
 * did. A URL is single use and bound to its generation, so that PUT is the object's only writer.
 */
export function uploadedObject(db: Db, orgId: string, documentId: string, generation: number): { size: number; sha256: string } | null {
  return db
    .query<{ size: number; sha256: string }, [string, string, number]>(
      `SELECT size, sha256 FROM upload_grants WHERE org_id = ? AND document_id = ? AND generation = ?
       AND completed_at IS NOT NULL AND sha256 IS NOT NULL ORDER BY completed_at DESC LIMIT 1`,
    )
    .get(orgId, documentId, generation);
}

/** True while a PUT to the document's current generation is being written. */
export function uploadInProgress(db: Db, orgId: string, documentId: string, generation: number): boolean {
  return !!db
    .query(
      `SELECT 1 FROM upload_grants WHERE org_id = ? AND document_id = ? AND generation = ?
       AND claimed_at IS NOT NULL AND completed_at IS NULL LIMIT 1`,
    )
    .get(orgId, documentId, generation);
}

/** Unused URLs of a document stop working (deletion). */
export function revokeGrants(db: Db, orgId: string, documentId: string): void {
  db.query("DELETE FROM upload_grants WHERE org_id = ? AND document_id = ? AND claimed_at IS NULL AND completed_at IS NULL").run(orgId, documentId);
}

/**
 * At start no write can be in flight (one server per data directory), so claims left by a
 * crash are released; their temporary files never became objects.
 */
export function releaseStaleClaims(db: Db): number {
  return db.query("UPDATE upload_grants SET claimed_at = NULL WHERE claimed_at IS NOT NULL AND completed_at IS NULL").run().changes;
}
