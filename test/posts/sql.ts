import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Kbqa, Org } from "../helpers/server.ts";

/** Direct reads of the server's database, for facts the API does not publish (chunk rows of a document). */
export function sql<T>(k: Kbqa, q: string, ...params: (string | number)[]): T[] {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    return db.query(q).all(...params) as T[];
  } finally {
    db.close();
  }
}

export interface ChunkRow { id: string; pages: number[]; body: string; kind: string }

export function chunkRows(k: Kbqa, documentId: string): ChunkRow[] {
  return sql<{ id: string; pages: string; body: string; metadata: string }>(
    k, "SELECT id, pages, body, metadata FROM chunks WHERE document_id = ? AND deleted_at IS NULL ORDER BY first_page, id", documentId,
  ).map((r) => ({ id: r.id, pages: JSON.parse(r.pages), body: r.body, kind: JSON.parse(r.metadata).kind }));
}

/**
 * DELETE /v1/chunk/{id} and PATCH /v1/chunk/{id} belong to the chunk API. While it is not
 * served (a "No route" 404), these fall back to the same row change made in SQLite, so the
 * posts rules are tested either way; once the route exists the API path is the one exercised.
 */

async function viaApiOr(k: Kbqa, org: Org, method: string, path: string, body: unknown, fallback: (db: Database) => void): Promise<"api" | "sql"> {
  const r = await org.api(method, path, body);
  if (r.status === 200 || r.status === 204) return "api";
  if (r.status !== 404 || !String(r.body?.message ?? "").startsWith("No route")) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  const db = new Database(join(k.dataDir, "kbqa.sqlite"));
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    fallback(db);
  } finally {
    db.close();
  }
  return "sql";
}

export const deleteChunk = (k: Kbqa, org: Org, id: string) =>
  viaApiOr(k, org, "DELETE", `/v1/chunk/${id}`, undefined, (db) => db.query("UPDATE chunks SET deleted_at = ?1 WHERE id = ?2").run(Date.now(), id));

export const patchChunkBody = (k: Kbqa, org: Org, id: string, body: string) =>
  viaApiOr(k, org, "PATCH", `/v1/chunk/${id}`, { body }, (db) => db.query("UPDATE chunks SET body = ?1 WHERE id = ?2").run(body, id));
