import { briefMessage } from "../ingest/convert/errors.ts";
import { FILE_EMPTY } from "../ingest/convert/text.ts";
import type { AppContext } from "../context.ts";
import { AppError, badRequest, conflict, type ErrorCode } from "../http/errors.ts";
import { inspectUpload } from "./inspect.ts";
import { recordUsage } from "../usage/record.ts";
import { uploadedObject, uploadInProgress, uploadUrlsExpiredAt } from "../storage/grants.ts";
import { getRow, view, type DocRow, type DocumentView } from "./rows.ts";

/**
 * The oldest live document of the corpus with the same bytes. A FAILED document holds no content
 * for the corpus: the same bytes may come back as a new document (with a fixed chunk setting, say).
 * INDEXED BY: without statistics (kbqa never runs ANALYZE) the planner preferred documents_corpus,
 * which yields the ORDER BY without a sort, and so read every live document of the corpus on each
 * commit, inside its write transaction (21 ms at 10,000 documents, ~100 ms at 50,000: the scale
 * audit's uploads into a 50,000-document corpus spent most of their server time here). The hash
 * index finds the few candidates directly; sorting them costs nothing.
 */
export const DUPLICATE_SQL = `SELECT id FROM documents INDEXED BY documents_hash
  WHERE org_id = ? AND corpus_id = ? AND content_hash = ? AND deleted_at IS NULL AND status != 'FAILED' AND id != ?
  ORDER BY created_at, id LIMIT 1`;

export interface CommitResult {
  /** 202 when ingestion is (or already was) queued, 200 for an idempotent commit of a READY document. */
  code: 200 | 202;
  document: DocumentView;
}

/**
 * AWAITING_UPLOAD → PROCESSING: the object must be there, within the size limit, really of
 * the declared type (sniffed, never handed to a parser otherwise) and not a duplicate by
 * SHA-256 of a live document of the same corpus. The state change, the storage usage event
 * and the ingestion job are one SQLite transaction: a crash leaves either nothing or a
 * PROCESSING document with its job.
 *
 * A refused commit (413, 415, 409 duplicate) moves the document to FAILED with the reason in
 * statusMsg: its single-use URL is spent, and FAILED is what PUT /v1/doc/{id}/init accepts to
 * hand out a new one. So does a commit after every upload URL expired unused (400). "Nothing
 * uploaded" while a URL still works (400) and "upload in progress" (409) change nothing.
 */
export async function commitDocument(ctx: AppContext, orgId: string, id: string): Promise<CommitResult> {
  const { db, clock, blobs } = ctx;
  const r = getRow(db, orgId, id);
  if (r.status === "READY") return { code: 200, document: view(r) };
  if (r.status === "PROCESSING" || r.status === "PENDING") return { code: 202, document: view(r) };
  if (r.status === "FAILED") {
    throw conflict(`Document is FAILED (${r.status_msg ?? "no reason recorded"}); give it new content with PUT /v1/doc/${id}/init`);
  }
  if (uploadInProgress(db, orgId, id, r.generation)) throw conflict("An upload to this document is still being written; commit once the PUT has answered");
  const fail = (code: ErrorCode, message: string, details?: Record<string, unknown>): never => {
    db.transaction(() => {
      db.query(
        "UPDATE documents SET status = 'FAILED', status_msg = ?, updated_at = ? WHERE org_id = ? AND id = ? AND status = 'AWAITING_UPLOAD' AND generation = ?",
      ).run(message, Math.max(clock.now(), r.updated_at + 1), orgId, id, r.generation);
    })();
    throw new AppError(code, message, details);
  };

  const stat = await blobs.stat(r.blob_key);
  if (!stat) {
    // With every URL expired unused, nothing can ever be uploaded: FAILED is the state from which
    // PUT /v1/doc/{id}/init hands out a new URL (from AWAITING_UPLOAD the spec answers 409), so
    // a client that came back too late can still finish this document instead of leaving it behind.
    const expired = uploadUrlsExpiredAt(db, orgId, id, r.generation, clock.now());
    if (expired !== undefined) {
      fail("BAD_REQUEST", `Nothing was uploaded before the upload URL expired (${new Date(expired).toISOString()}); PUT /v1/doc/${id}/init gives a new one`);
    }
    throw badRequest("Nothing was uploaded for this document: PUT the file to uploadUrl first");
  }

  const max = ctx.config.maxUploadBytes;
  if (stat.size > max) fail("PAYLOAD_TOO_LARGE", `The uploaded file has ${stat.size} bytes; the maximum is ${max}`);
  // The storage route hashed the bytes as it wrote them, and judged their type when it held them
  // whole: commit then reads nothing back. A file that got there another way is read here.
  const inspected = await inspectUpload(
    blobs,
    r.blob_key,
    stat.size,
    r.content_type,
    uploadedObject(db, orgId, id, r.generation),
    (e) => ctx.log.error("inspecting an upload failed", { documentId: id, error: briefMessage(e) }),
  );
  if (!inspected) throw badRequest("Nothing was uploaded for this document: PUT the file to uploadUrl first");
  // An empty file is no file of any type: said as it is, not as a missing header or zip signature.
  if (inspected.reason === FILE_EMPTY) fail("UNSUPPORTED_MEDIA_TYPE", "The uploaded file is empty");
  if (inspected.reason) fail("UNSUPPORTED_MEDIA_TYPE", `The uploaded bytes are not ${r.content_type}: ${inspected.reason}`);
  const { size, sha256: hash } = inspected;

  const now = clock.now();
  const outcome = db.transaction((): { dup?: string; row: DocRow } => {
    const cur = getRow(db, orgId, id);
    // A concurrent commit or a replacement got there first: answer with what is there now.
    if (cur.status !== "AWAITING_UPLOAD" || cur.generation !== r.generation) return { row: cur };
    const dup = db.query<{ id: string }, [string, string, string, string]>(DUPLICATE_SQL).get(orgId, cur.corpus_id, hash, id);
    if (dup) return { dup: dup.id, row: cur };
    db.query(
      `UPDATE documents SET status = 'PROCESSING', status_msg = NULL, size = ?, content_hash = ?, stage = NULL, stage_done = NULL,
         stage_total = NULL, updated_at = ? WHERE org_id = ? AND id = ?`,
    ).run(size, hash, Math.max(now, cur.updated_at + 1), orgId, id);
    recordUsage(db, orgId, { metric: "storage", op: "created", amount: size, at: now, userId: cur.user_id, corpusId: cur.corpus_id, source: "document" });
    db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, ?, 'queued', ?)").run(orgId, id, cur.generation, now);
    return { row: getRow(db, orgId, id) };
  })();
  if (outcome.dup) {
    fail("CONFLICT", `Duplicate content: document ${outcome.dup} of this corpus has the same bytes`, { existingDocumentId: outcome.dup });
  }
  if (outcome.row.status === "PROCESSING") ctx.wakeIngestion?.();
  const code = outcome.row.status === "READY" ? 200 : 202;
  if (outcome.row.status === "FAILED") throw conflict(`Document is FAILED (${outcome.row.status_msg ?? ""})`);
  return { code, document: view(outcome.row) };
}
