import { normalLang } from "../http/paging.ts";
import type { AppContext } from "../context.ts";
import { toJson } from "../store/db.ts";
import { newId } from "../store/ids.ts";
import { AppError, conflict, notFound } from "../http/errors.ts";
import { originalKey } from "../store/blob-keys.ts";
import { isAccepted, mediaType } from "../ingest/formats.ts";
import { queuePosition } from "../ingest/job-store.ts";
import { recordUsage } from "../usage/record.ts";
import { insertGrant, revokeGrants, uploadUrlsExpiredAt } from "../storage/grants.ts";
import type { Presigner } from "../storage/presigner.ts";
import { findRow, getRow, view, type DocRow, type DocStatus, type DocumentView } from "./rows.ts";
import { chunkColumn, filenameKey, normalizeTags, timeField } from "./fields.ts";
import { commitDocument } from "./commit.ts";
import "./cascade.ts";
import { recordVectorDrop } from "./vector-drops.ts";

export interface InitInput {
  corpusId: string;
  filename: string;
  contentType: string;
  metadata?: Record<string, unknown>;
  tags?: string[] | null;
  chunk?: Record<string, unknown> | null;
  provider?: string | null;
  userId?: string | null;
  lang?: string | null;
  docCreate?: string | null;
  docUpdate?: string | null;
}

export interface PatchInput {
  filename?: string;
  docCreate?: string | null;
  docUpdate?: string | null;
  metadata?: Record<string, unknown>;
  tags?: string[] | null;
  chunk?: Record<string, unknown> | null;
}

export interface Upload {
  document: DocumentView;
  uploadUrl: string;
  expiresAt: string;
}

/** Soft-deletes the chunks of a document (replacement and deletion). */
const DROP_CHUNKS = "UPDATE chunks SET deleted_at = ? WHERE org_id = ? AND document_id = ? AND deleted_at IS NULL";

export function documentService(ctx: AppContext, sign: Presigner, corpusExists: (orgId: string, id: string) => boolean) {
  const { db, clock } = ctx;

  /** `bound`: the Content-Type the PUT must carry — the one the client declared at init, else the document's. */
  const grantUpload = (r: DocRow, now: number, origin: string, bound = r.content_type): { uploadUrl: string; expiresAt: string } => {
    const nonce = newId();
    const u = sign.put(r.blob_key, bound, nonce, now);
    insertGrant(db, {
      nonce, orgId: r.org_id, documentId: r.id, generation: r.generation, blobKey: r.blob_key,
      contentType: bound, expiresAt: u.expiresAt, createdAt: now,
    });
    return { uploadUrl: origin + u.path, expiresAt: new Date(u.expiresAt).toISOString() };
  };

  /** The index drop recorded in the removing transaction is carried out now, after the commit (vector-drops.ts). */
  const dropVectors = () => ctx.vectorDrops?.kick();

  return {
    init(orgId: string, principalUserId: string, b: InitInput, origin: string): Upload {
      if (!corpusExists(orgId, b.corpusId)) throw notFound("Corpus", "corpusId");
      if (!isAccepted(b.contentType)) {
        throw new AppError("UNSUPPORTED_MEDIA_TYPE", `Invalid body field 'contentType': ${JSON.stringify(b.contentType)} is not an accepted type; see GET /v1/doc/accept`);
      }
      const tags = b.tags == null ? [] : normalizeTags(b.tags);
      const docCreate = timeField(b.docCreate, "docCreate");
      const docUpdate = timeField(b.docUpdate, "docUpdate");
      const id = newId();
      const now = clock.now();
      return db.transaction(() => {
        db.query(
          `INSERT INTO documents (id, org_id, corpus_id, filename, filename_lc, content_type, status, nb_pages, user_id, provider, lang,
             metadata, tags, chunk, doc_create, doc_update, created_at, updated_at, blob_key, generation)
           VALUES (?, ?, ?, ?, ?, ?, 'AWAITING_UPLOAD', 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
        ).run(
          // Stored as the listed type (a filter on contentType matches it exactly); the URL stays bound to the declared header.
          id, orgId, b.corpusId, b.filename, filenameKey(b.filename), mediaType(b.contentType), b.userId ?? principalUserId, b.provider ?? null,
          normalLang(b.lang) ?? null, toJson(b.metadata ?? {}), JSON.stringify(tags), chunkColumn(b.chunk), docCreate ?? null, docUpdate ?? null,
          now, now, originalKey(orgId, id),
        );
        const r = getRow(db, orgId, id);
        return { document: view(r), ...grantUpload(r, now, origin, b.contentType) };
      })();
    },

    /**
     * New content for a READY or FAILED document. The object key stays the same, so
     * committing without a new PUT re-ingests the previous bytes.
     */
    replace(orgId: string, id: string, origin: string): Upload {
      const now = clock.now();
      const out = db.transaction(() => {
        const r = getRow(db, orgId, id);
        if (r.status !== "READY" && r.status !== "FAILED") {
          // The spec's 409 stands, but a client whose upload URL expired unused needs the way out.
          const expired = r.status === "AWAITING_UPLOAD" ? uploadUrlsExpiredAt(db, orgId, id, r.generation, now) : undefined;
          if (expired !== undefined) {
            throw conflict(
              `Document is AWAITING_UPLOAD and its upload URL expired unused (${new Date(expired).toISOString()}); only a READY or FAILED document can get new content: POST /v1/doc/${id}/commit marks it FAILED, then PUT /v1/doc/${id}/init gives a new URL`,
            );
          }
          throw conflict(`Document is ${r.status}; only a READY or FAILED document can get new content`);
        }
        db.query(
          // A detected lang described the previous content: the new one is detected again.
          `UPDATE documents SET status = 'AWAITING_UPLOAD', status_msg = NULL, size = NULL, tokens = NULL, nb_words = NULL,
             lang = CASE WHEN lang_detected = 1 THEN NULL ELSE lang END, lang_detected = NULL,
             summary = NULL, content_hash = NULL, stage = NULL, stage_done = NULL, stage_total = NULL,
             generation = generation + 1, updated_at = ? WHERE org_id = ? AND id = ?`,
        ).run(Math.max(now, r.updated_at + 1), orgId, id);
        db.query(DROP_CHUNKS).run(now, orgId, id);
        recordVectorDrop(db, orgId, id, r.generation, now);
        // The size counter is dropped now, so the bytes stop counting now; the next commit counts them again.
        if (r.size) recordUsage(db, orgId, { metric: "storage", op: "removed", amount: r.size, at: now, userId: r.user_id, corpusId: r.corpus_id, source: "document" });
        const n = getRow(db, orgId, id);
        return { document: view(n), ...grantUpload(n, now, origin) };
      })();
      dropVectors();
      return out;
    },

    commit: (orgId: string, id: string) => commitDocument(ctx, orgId, id),

    get: (orgId: string, id: string): DocumentView => view(getRow(db, orgId, id)),

    row: (orgId: string, id: string): DocRow => getRow(db, orgId, id),

    status(orgId: string, id: string) {
      const r = getRow(db, orgId, id);
      const s: Record<string, unknown> = { id: r.id, status: r.status };
      if (r.status_msg != null) s.statusMsg = r.status_msg;
      if (r.stage != null) s.stage = r.stage;
      if (r.stage_done != null) s.done = r.stage_done;
      if (r.stage_total != null) s.total = r.stage_total;
      if (r.status === "PROCESSING" && r.stage == null) {
        // Committed but not yet taken by a worker: a bare PROCESSING for seconds behind a burst
        // of uploads looked stuck. Say so, and how many of the organization's documents are before it.
        const ahead = queuePosition(db, orgId, r.id, r.generation);
        if (ahead !== null) Object.assign(s, { stage: "queued", ahead });
      }
      // Progress stops while the data volume cannot be written: say why, instead of a silent PROCESSING.
      const paused = r.status === "PROCESSING" ? ctx.ingestionPaused?.() : null;
      if (paused) s.waiting = `ingestion is paused: ${paused}; it resumes on its own once that is fixed`;
      s.updatedAt = new Date(r.updated_at).toISOString();
      return s as { id: string; status: DocStatus; statusMsg?: string; stage?: string; done?: number; total?: number; ahead?: number; waiting?: string; updatedAt: string };
    },

    /** Present fields only; renaming moves nothing and re-ingests nothing. */
    patch(orgId: string, id: string, b: PatchInput): DocumentView {
      // null clears, as at init: tags are always a list (a stored null came back as `tags: null`).
      const tags = b.tags === undefined ? undefined : b.tags === null ? [] : normalizeTags(b.tags);
      const docCreate = timeField(b.docCreate, "docCreate");
      const docUpdate = timeField(b.docUpdate, "docUpdate");
      return db.transaction(() => {
        const r = getRow(db, orgId, id);
        db.query(
          `UPDATE documents SET filename = ?, filename_lc = ?, doc_create = ?, doc_update = ?, metadata = ?, tags = ?, chunk = ?, updated_at = ?
           WHERE org_id = ? AND id = ?`,
        ).run(
          b.filename ?? r.filename,
          filenameKey(b.filename ?? r.filename),
          docCreate !== undefined ? docCreate : r.doc_create,
          docUpdate !== undefined ? docUpdate : r.doc_update,
          b.metadata !== undefined ? toJson(b.metadata) : r.metadata,
          tags !== undefined ? toJson(tags) : r.tags,
          b.chunk !== undefined ? chunkColumn(b.chunk) : r.chunk,
          Math.max(clock.now(), r.updated_at + 1),
          orgId,
          id,
        );
        return view(getRow(db, orgId, id));
      })();
    },

    /** Soft delete: the row, its chunks and unused upload URLs go; the bytes stay in storage. */
    remove(orgId: string, id: string): void {
      const now = clock.now();
      db.transaction(() => {
        const r = getRow(db, orgId, id);
        db.query("UPDATE documents SET deleted_at = ? WHERE org_id = ? AND id = ?").run(now, orgId, id);
        db.query(DROP_CHUNKS).run(now, orgId, id);
        revokeGrants(db, orgId, id);
        recordVectorDrop(db, orgId, id, null, now);
        if (r.size) recordUsage(db, orgId, { metric: "storage", op: "removed", amount: r.size, at: now, userId: r.user_id, corpusId: r.corpus_id, source: "document" });
      })();
      dropVectors();
    },

    exists: (orgId: string, id: string) => findRow(db, orgId, id) != null,
  };
}
export type DocumentService = ReturnType<typeof documentService>;
