import type { Db } from "../store/db.ts";
import { fromJson, toJson } from "../store/db.ts";
import { LIVE_CHUNK } from "../store/live-chunks.ts";

export interface Citation {
  chunkId: string;
  documentId: string;
  generation: number;
  pages: number[];
  ref: number;
}

export interface Attachment {
  docId: string;
  summary: string | null;
  pages: number[];
  metadata: Record<string, unknown>;
}

/**
 * A citation is live while its chunk is live (store/live-chunks.ts) and was made against the
 * document's current generation; one join serves a whole page of posts.
 */
const LIVE = `pc.org_id = ? AND ${LIVE_CHUNK} AND pc.generation = d.generation`;
const FROM = `FROM post_citations pc
  JOIN chunks c ON c.id = pc.chunk_id AND c.org_id = pc.org_id
  JOIN documents d ON d.id = pc.document_id AND d.org_id = pc.org_id`;

/** Call inside the transaction that writes the answer. */
export function insertCitations(db: Db, orgId: string, postId: string, cs: Citation[]): void {
  const q = db.query(
    "INSERT OR IGNORE INTO post_citations (post_id, org_id, chunk_id, document_id, generation, pages, ref) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  for (const c of cs) q.run(postId, orgId, c.chunkId, c.documentId, c.generation, toJson(c.pages), c.ref);
}

export function liveCitationCounts(db: Db, orgId: string, postIds: string[]): Map<string, number> {
  if (!postIds.length) return new Map();
  const rows = db
    .query<{ post_id: string; n: number }, string[]>(
      `SELECT pc.post_id, count(*) AS n ${FROM} WHERE ${LIVE} AND pc.post_id IN (${postIds.map(() => "?").join(",")}) GROUP BY pc.post_id`,
    )
    .all(orgId, ...postIds);
  return new Map(rows.map((r) => [r.post_id, r.n]));
}

interface LiveRow {
  document_id: string;
  pages: string;
  ref: number;
  summary: string | null;
  metadata: string;
}

/**
 * Live citations of one answer as attachments, one per document in order of first citation,
 * with the union of the pages the chunks cover (the chunk's current pages: a PATCH of `pages`
 * shows here), ascending.
 */
export function liveAttachments(db: Db, orgId: string, postId: string): Attachment[] {
  const rows = db
    .query<LiveRow, [string, string]>(
      `SELECT pc.document_id, c.pages, pc.ref, d.summary, d.metadata ${FROM} WHERE ${LIVE} AND pc.post_id = ? ORDER BY pc.ref`,
    )
    .all(orgId, postId);
  return groupAttachments(rows.map((r) => ({
    documentId: r.document_id, pages: fromJson<number[]>(r.pages, []), summary: r.summary, metadata: fromJson(r.metadata, {}),
  })));
}

/** Groups cited chunks (already in citation order) per document; pages are merged, sorted, de-duplicated. */
export function groupAttachments(
  cited: { documentId: string; pages: number[]; summary: string | null; metadata: Record<string, unknown> }[],
): Attachment[] {
  const byDoc = new Map<string, { a: Attachment; pages: Set<number> }>();
  for (const c of cited) {
    let g = byDoc.get(c.documentId);
    if (!g) {
      g = { a: { docId: c.documentId, summary: c.summary, pages: [], metadata: c.metadata }, pages: new Set() };
      byDoc.set(c.documentId, g);
    }
    for (const p of c.pages) g.pages.add(p);
  }
  return [...byDoc.values()].map(({ a, pages }) => ({ ...a, pages: [...pages].sort((x, y) => x - y) }));
}
