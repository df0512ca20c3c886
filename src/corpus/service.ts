import type { Db } from "../store/db.ts";
import { fromJson, toJson } from "../store/db.ts";
import { orderedId } from "../store/ids.ts";
import { iso, type Clock } from "../store/time.ts";
import { notFound } from "../http/errors.ts";
import { offsetOf, type Paging } from "../http/paging.ts";
import { recordUsage } from "../usage/record.ts";
import { recordCorpusDrop } from "./drops.ts";

export interface CorpusView {
  id: string;
  name: string;
  description?: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  name: string;
  description: string | null;
  metadata: string;
  created_at: number;
  updated_at: number;
}

const view = (r: Row): CorpusView => ({
  id: r.id,
  name: r.name,
  description: r.description,
  metadata: fromJson(r.metadata, {}),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/**
 * Soft-deleting a corpus hides what hangs off it. Domains register here the statements that must
 * run in the corpus deletion transaction (documents/cascade.ts: the chunk-search epoch); the
 * rows themselves, with their usage, are marked deleted in the background (drops.ts,
 * corpus/marks.ts), since the corpus' deletion already hides them from every reader. Statements
 * here must not grow with the corpus: the transaction holds the event loop.
 */
export const CORPUS_CASCADE: string[] = [];

export function corpusService(db: Db, clock: Clock) {
  const get = (orgId: string, id: string): Row | null =>
    db
      .query<Row, [string, string]>(
        "SELECT id, name, description, metadata, created_at, updated_at FROM corpora WHERE org_id = ? AND id = ? AND deleted_at IS NULL",
      )
      .get(orgId, id);

  return {
    create(orgId: string, userId: string, b: { name: string; description?: string | null; metadata?: Record<string, unknown> }): CorpusView {
      const now = clock.now();
      // Time-ordered: corpora created in the same millisecond still list newest first (the id breaks created_at ties).
      const id = orderedId();
      db.transaction(() => {
        db.query(
          "INSERT INTO corpora (id, org_id, name, description, metadata, user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        ).run(id, orgId, b.name, b.description ?? null, toJson(b.metadata ?? {}), userId, now, now);
        recordUsage(db, orgId, { metric: "corpora", op: "created", amount: 1, at: now, userId, corpusId: id });
      })();
      return view(get(orgId, id)!);
    },

    get(orgId: string, id: string): CorpusView {
      const r = get(orgId, id);
      if (!r) throw notFound("Corpus");
      return view(r);
    },

    /** True when the corpus belongs to the organization, live or deleted (a search filter on it is then no error). */
    owned(orgId: string, id: string): boolean {
      return db.query("SELECT 1 FROM corpora WHERE org_id = ? AND id = ?").get(orgId, id) != null;
    },

    /** True when the corpus exists, is live and belongs to the organization. */
    exists(orgId: string, id: string): boolean {
      return get(orgId, id) != null;
    },

    list(orgId: string, p: Paging) {
      const total = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM corpora WHERE org_id = ? AND deleted_at IS NULL").get(orgId)!.n;
      const rows = db
        .query<Row, [string, number, number]>(
          "SELECT * FROM corpora WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
        )
        .all(orgId, p.pageSize, offsetOf(p));
      return { pageIndex: p.pageIndex, pageSize: p.pageSize, total, items: rows.map(view) };
    },

    patch(orgId: string, id: string, b: { name?: string; description?: string | null; metadata?: Record<string, unknown> }): CorpusView {
      const r = get(orgId, id);
      if (!r) throw notFound("Corpus");
      const now = Math.max(clock.now(), r.updated_at + 1);
      db.query("UPDATE corpora SET name = ?, description = ?, metadata = ?, updated_at = ? WHERE org_id = ? AND id = ?").run(
        b.name ?? r.name,
        b.description !== undefined ? b.description : r.description,
        b.metadata !== undefined ? toJson(b.metadata) : r.metadata,
        now,
        orgId,
        id,
      );
      return view(get(orgId, id)!);
    },

    remove(orgId: string, userId: string, id: string): void {
      const now = clock.now();
      db.transaction(() => {
        const r = get(orgId, id);
        if (!r) throw notFound("Corpus");
        db.query("UPDATE corpora SET deleted_at = ? WHERE org_id = ? AND id = ?").run(now, orgId, id);
        for (const sql of CORPUS_CASCADE) db.query(sql).run({ now, org: orgId, corpus: id });
        recordCorpusDrop(db, { orgId, corpusId: id, at: now });
        recordUsage(db, orgId, { metric: "corpora", op: "removed", amount: 1, at: now, userId, corpusId: id });
      })();
    },
  };
}
export type CorpusService = ReturnType<typeof corpusService>;
