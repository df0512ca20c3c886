import type { Db } from "../store/db.ts";
import { fromJson } from "../store/db.ts";
import { iso, isoOrUndef } from "../store/time.ts";
import { notFound } from "../http/errors.ts";
import { liveCorpus } from "../corpus/drops.ts";

export const STATUSES = ["AWAITING_UPLOAD", "PROCESSING", "READY", "FAILED", "PENDING"] as const;
export type DocStatus = (typeof STATUSES)[number];

export interface DocRow {
  id: string;
  org_id: string;
  corpus_id: string;
  filename: string;
  content_type: string;
  status: DocStatus;
  status_msg: string | null;
  size: number | null;
  tokens: number | null;
  nb_words: number | null;
  nb_pages: number;
  user_id: string | null;
  provider: string | null;
  lang: string | null;
  metadata: string;
  tags: string | null;
  chunk: string | null;
  doc_create: number | null;
  doc_update: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  blob_key: string;
  content_hash: string | null;
  summary: string | null;
  stage: string | null;
  stage_done: number | null;
  stage_total: number | null;
  generation: number;
}

export interface DocumentView {
  id: string;
  corpusId: string;
  filename: string;
  contentType: string;
  status: DocStatus;
  statusMsg?: string;
  size?: number;
  tokens?: number;
  nbWords?: number;
  nbPages: number;
  userId?: string;
  provider?: string;
  lang?: string;
  metadata: Record<string, unknown>;
  tags: string[] | null;
  chunk?: Record<string, unknown>;
  docCreate?: string;
  docUpdate?: string;
  createdAt: string;
  updatedAt: string;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/** Unset counters and optional strings are omitted, as the spec asks; nbPages is always there. */
export function view(r: DocRow): DocumentView {
  const v: DocumentView = {
    id: r.id,
    corpusId: r.corpus_id,
    filename: r.filename,
    contentType: r.content_type,
    status: r.status,
    statusMsg: opt(r.status_msg),
    size: opt(r.size),
    tokens: opt(r.tokens),
    nbWords: opt(r.nb_words),
    nbPages: r.nb_pages,
    userId: opt(r.user_id),
    provider: opt(r.provider),
    lang: opt(r.lang),
    metadata: fromJson(r.metadata, {}),
    tags: fromJson<string[] | null>(r.tags, null),
    chunk: r.chunk == null ? undefined : fromJson(r.chunk, {}),
    docCreate: isoOrUndef(r.doc_create),
    docUpdate: isoOrUndef(r.doc_update),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
  for (const k of Object.keys(v) as (keyof DocumentView)[]) if (v[k] === undefined) delete v[k];
  return v;
}

/** The live document of the organization; another organization's, a deleted one or one of a deleted corpus is absent. */
export function findRow(db: Db, orgId: string, id: string): DocRow | null {
  return db
    .query<DocRow, [string, string]>(`SELECT * FROM documents d WHERE d.org_id = ? AND d.id = ? AND d.deleted_at IS NULL AND ${liveCorpus("d")}`)
    .get(orgId, id);
}

export function getRow(db: Db, orgId: string, id: string): DocRow {
  const r = findRow(db, orgId, id);
  if (!r) throw notFound("Document");
  return r;
}
