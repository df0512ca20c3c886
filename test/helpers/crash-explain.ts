/**
 * Why a READY document is not found by its code word (crash-check-reports.ts): what SQLite and
 * LanceDB each hold of it, read beside the running server (SQLite read-only in WAL mode, LanceDB
 * on a connection of its own), and what the full-text index answers for the code word, with and
 * without the organization/corpus prefilter the server uses, against a plain scan of the text.
 * So a failure says which side lost the rows, or whether the index misses rows the table holds.
 */
import { Database } from "bun:sqlite";
import * as lancedb from "@lancedb/lancedb";
import { join } from "node:path";

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;

export async function explainMissing(dataDir: string, orgId: string, corpusId: string, documentId: string, code: string): Promise<string> {
  const out: string[] = [];
  const say = (k: string, v: unknown) => out.push(`${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  let live: string[] = [];
  try {
    const db = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
    try {
      const d = db.query("SELECT status, generation, deleted_at, corpus_id, content_hash FROM documents WHERE id = ?").get(documentId) as any;
      say("sqlite document", d);
      const rows = db.query("SELECT id, generation, deleted_at, body FROM chunks WHERE document_id = ? ORDER BY generation, seq").all(documentId) as any[];
      live = rows.filter((r) => r.deleted_at === null && r.generation === d?.generation).map((r) => r.id);
      say("sqlite chunks (generation: total/live)", Object.entries(Object.groupBy(rows, (r) => String(r.generation))).map(([g, rs]) => `${g}: ${rs!.length}/${rs!.filter((r) => r.deleted_at === null).length}`).join(", "));
      say("sqlite live chunks holding the code word", rows.filter((r) => live.includes(r.id) && String(r.body ?? "").includes(code)).length);
      say("sqlite jobs", db.query("SELECT generation, state, attempts, error FROM jobs WHERE document_id = ? ORDER BY id").all(documentId));
      say("sqlite vector_drops pending", db.query("SELECT generation, chunk_id FROM vector_drops WHERE document_id = ?").all(documentId));
      say("sqlite documents whose current text holds the code word", (db.query("SELECT DISTINCT document_id FROM chunks WHERE body LIKE ? AND deleted_at IS NULL").all(`%${code}%`) as any[]).map((r) => r.document_id));
    } finally {
      db.close();
    }
  } catch (e) {
    say("sqlite read failed", String(e));
  }
  try {
    const conn = await lancedb.connect(join(dataDir, "lance"));
    try {
      for (const name of (await conn.tableNames()).filter((n) => n.startsWith("chunks__"))) {
        const t = await conn.openTable(name);
        try {
          const rows = await t.query().where(`documentId = ${q(documentId)}`).select(["chunkId", "generation", "text"]).toArray();
          say(`${name} rows of the document (chunkId in sqlite's live set)`, rows.map((r) => `g${r.generation}:${live.includes(String(r.chunkId)) ? "live" : "stale"}${String(r.text).includes(code) ? "+code" : ""}`).join(" "));
          const scan = await t.query().where(`text LIKE ${q(`%${code}%`)}`).select(["documentId"]).toArray();
          say(`${name} scan: documents whose text holds the code word`, [...new Set(scan.map((r) => String(r.documentId)))]);
          const where = `orgId = ${q(orgId)} AND corpusId IN (${q(corpusId)})`;
          const fts = async (w?: string) => {
            let s = t.query().fullTextSearch(code, { columns: ["text"] });
            if (w) s = s.where(w);
            return [...new Set((await s.select(["documentId", "_score"]).limit(64).toArray()).map((r) => String(r.documentId)))];
          };
          say(`${name} full-text search, prefiltered as the server asks`, await fts(where));
          say(`${name} full-text search, no filter`, await fts());
          for (const i of await t.listIndices()) {
            const st = await t.indexStats(i.name);
            say(`${name} index ${i.name} (${i.columns})`, { indexed: st?.numIndexedRows, unindexed: st?.numUnindexedRows });
          }
          say(`${name} version, rows`, [await t.version(), await t.countRows()]);
        } finally {
          t.close();
        }
      }
    } finally {
      conn.close();
    }
  } catch (e) {
    say("lance read failed", String(e));
  }
  return out.join("\n  ");
}
