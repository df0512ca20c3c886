import type { Db } from "../store/db.ts";
import { fromJson, toJson } from "../store/db.ts";
import type { Clock } from "../store/time.ts";
import { recordChunkDrop } from "../documents/vector-drops.ts";
import { badRequest, forbidden, notFound } from "../http/errors.ts";
import { requireDepth, requireFinite } from "../http/paging.ts";
import { contains } from "./containment.ts";
import { searchChunks, type ChunkRow, type Filter, type Match } from "./query.ts";
import { fragmentTerms } from "./terms.ts";

export interface ChunkView {
  id: string;
  documentId: string;
  corpusId: string;
  pages: number[];
  hash: string;
  metadata: Record<string, unknown>;
  body?: string;
}

export interface SearchParams {
  corpusId?: string;
  documentId?: string;
  hash?: string;
  page?: number;
  key?: string;
  value?: string;
  json?: string;
  body?: boolean;
  pageSize: number;
  pageIndex: number;
}

/** Listings with text are capped: the spec's Limits table. */
export const MAX_PAGE_WITH_BODY = 25;

const view = (r: ChunkRow, withBody: boolean): ChunkView => ({
  id: r.id,
  documentId: r.document_id,
  corpusId: r.corpus_id,
  pages: fromJson<number[]>(r.pages, []),
  hash: r.hash,
  metadata: fromJson<Record<string, unknown>>(r.metadata, {}),
  // NULL means the stored text is missing: an existing chunk with an empty body, not an error.
  ...(withBody ? { body: r.body ?? "" } : {}),
});

/** The metadata filter of a query: `json` wins over `key`/`value`. */
export function parseMatch(db: Db, q: { key?: string; value?: string; json?: string }): Match | undefined {
  if ((q.key === undefined) !== (q.value === undefined) && q.json === undefined) {
    throw badRequest("Query parameters 'key' and 'value' go together: send both or neither");
  }
  const fragments: Record<string, unknown>[] = [];
  if (q.json !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(q.json);
    } catch {
      throw badRequest("Invalid query parameter 'json': not valid JSON");
    }
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw badRequest("Invalid query parameter 'json': must be a JSON object");
    // SQLite's json_tree refuses a fragment over 1000 levels deep (a 500); metadata is capped lower anyway.
    requireDepth(v, "query parameter 'json'");
    requireFinite(v, "query parameter 'json'");
    fragments.push(v as Record<string, unknown>);
  } else if (q.key !== undefined && q.value !== undefined) {
    fragments.push({ [q.key]: q.value });
    // value=3 also finds the number 3, value=true the boolean; the string itself always matches.
    const typed = scalarOf(q.value);
    if (typed !== undefined) fragments.push({ [q.key]: typed });
  } else return undefined;
  const parts = fragments.map((fr) => termsOf(db, fr));
  if (parts.some((p) => p.terms.length === 0)) return undefined; // {} contains-matches everything
  const conds = fragments.length === 1 ? parts[0]!.terms.map((t) => [t]) : [parts.flatMap((p) => p.terms)];
  const exact = parts.every((p) => p.exact) && (fragments.length === 1 || parts.every((p) => p.terms.length === 1));
  return { conds, exact, key: JSON.stringify(fragments), test: (md) => fragments.some((fr) => contains(md, fr)) };
}

/**
 * A fragment's terms depend on the fragment alone, not on the data: kept for the most recent
 * fragments, so a repeated or paged query skips the json_tree pass.
 */
const fragmentMemo = new Map<string, ReturnType<typeof fragmentTerms>>();
function termsOf(db: Db, fragment: Record<string, unknown>) {
  const key = JSON.stringify(fragment);
  let t = fragmentMemo.get(key);
  if (t) fragmentMemo.delete(key);
  else if (key.length <= 4096) {
    t = fragmentTerms(db, fragment);
    if (fragmentMemo.size >= 256) fragmentMemo.delete(fragmentMemo.keys().next().value!);
  } else return fragmentTerms(db, fragment);
  fragmentMemo.set(key, t);
  return t;
}

function scalarOf(s: string): unknown {
  try {
    const v = JSON.parse(s);
    return typeof v === "number" || typeof v === "boolean" || v === null ? v : undefined;
  } catch {
    return undefined;
  }
}

export function chunkService(db: Db, clock: Clock, kickDrops: () => void = () => {}) {
  /** A corpus or document filter must name one of the caller's own: anything else is refused. */
  const ownedOrForbidden = (orgId: string, table: "corpora" | "documents", id: string | undefined, what: string) => {
    if (id === undefined) return;
    const r = db.query<{ org_id: string }, [string]>(`SELECT org_id FROM ${table} WHERE id = ?`).get(id);
    if (!r || r.org_id !== orgId) throw forbidden(`${what} ${id} is not a ${what.toLowerCase()} of your organization`);
  };

  const load = (orgId: string, id: string) => {
    const r = db
      .query<ChunkRow & { generation: number; deleted_at: number | null; d_generation: number | null; d_deleted: number | null; d_status: string | null }, [string, string]>(
        // A document of a deleted corpus counts as deleted, marked or not (corpus/drops.ts).
        `SELECT c.rowid, c.*, d.generation AS d_generation, COALESCE(d.deleted_at, k.deleted_at) AS d_deleted, d.status AS d_status
         FROM chunks c LEFT JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
           LEFT JOIN corpora k ON k.id = d.corpus_id AND k.org_id = d.org_id
         WHERE c.org_id = ? AND c.id = ?`,
      )
      .get(orgId, id);
    if (!r) throw notFound("Chunk");
    // Checked before the chunk's own deletion: deleting a document also soft-deletes its chunks.
    if (r.d_deleted !== null) throw forbidden(`Chunk ${id} belongs to a deleted document`);
    if (r.deleted_at !== null) throw notFound("Chunk");
    // A chunk of a replaced generation is as good as gone.
    if (r.d_generation !== r.generation || r.d_status !== "READY") throw notFound("Chunk");
    return r;
  };

  return {
    search(orgId: string, q: SearchParams) {
      if (q.body && q.pageSize > MAX_PAGE_WITH_BODY) {
        throw badRequest(`Invalid query parameter 'pageSize': at most ${MAX_PAGE_WITH_BODY} with body=true`);
      }
      const match = parseMatch(db, q);
      ownedOrForbidden(orgId, "corpora", q.corpusId, "Corpus");
      ownedOrForbidden(orgId, "documents", q.documentId, "Document");
      const f: Filter = { corpusId: q.corpusId, documentId: q.documentId, hash: q.hash, page: q.page, match };
      const body = q.body === true;
      // One read snapshot for counts and page, so a commit in between cannot skew them.
      const { total, rows } = db.transaction(() => searchChunks(db, orgId, f, { pageSize: q.pageSize, pageIndex: q.pageIndex, body })).deferred();
      return { pageIndex: q.pageIndex, pageSize: q.pageSize, total, items: rows.map((r) => view(r, body)) };
    },

    get(orgId: string, id: string): ChunkView {
      return view(load(orgId, id), true);
    },

    patch(orgId: string, id: string, b: { pages?: number[]; metadata?: Record<string, unknown>; body?: string }): ChunkView {
      // The route's schema checks this too; any other caller must not store what the index cannot read.
      if (b.metadata !== undefined) requireDepth(b.metadata, "body field 'metadata'");
      db.transaction(() => {
        const r = load(orgId, id);
        const pages = b.pages !== undefined ? [...new Set(b.pages)].sort((x, y) => x - y) : fromJson<number[]>(r.pages, []);
        if (pages.some((p) => !Number.isInteger(p) || p < 1)) throw badRequest("Invalid body field 'pages': each page is an integer of at least 1");
        // hash stays: it is the MD5 of the text as ingested, and the vector still encodes that text.
        db.query("UPDATE chunks SET pages = ?, first_page = ?, metadata = ?, body = ? WHERE rowid = ?").run(
          JSON.stringify(pages),
          pages[0] ?? 0,
          b.metadata !== undefined ? toJson(b.metadata)! : r.metadata,
          b.body !== undefined ? b.body : (r.body ?? null),
          r.rowid,
        );
      }).immediate();
      return this.get(orgId, id);
    },

    /**
     * Soft delete. SQLite is the truth for visibility, so the answer need not wait for LanceDB:
     * the vector's drop is recorded in the same transaction and carried out in the background
     * (documents/vector-drops.ts), after a crash too.
     */
    remove(orgId: string, id: string): void {
      db.transaction(() => {
        const r = load(orgId, id);
        const now = clock.now();
        db.query("UPDATE chunks SET deleted_at = ? WHERE rowid = ?").run(now, r.rowid);
        recordChunkDrop(db, orgId, r.document_id, id, now);
      }).immediate();
      kickDrops();
    },
  };
}
export type ChunkService = ReturnType<typeof chunkService>;
