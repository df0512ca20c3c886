/**
 * A backlog of bookkeeping rows for the purge (src/store/purge.ts), written straight into a real
 * database the way the routes and ingestion leave them: for each document, its row, its upload
 * grant, its job and an access token. Most were spent long before `cutoff`; among them, in
 * creation order, rows that must stay: documents still waiting for their upload (an expired unused
 * grant, an uploaded one not committed yet), queued and running jobs, revoked tokens that have
 * not expired, and rows spent 10 minutes after the cutoff. The last `recent` documents are created
 * after that. `activeJobs` false: no queued or running jobs (a server started on the directory
 * would take them up).
 */
import type { Db } from "../../src/store/db.ts";
import { newId } from "../../src/store/ids.ts";

export interface Backlog {
  /** Rows each table must keep, by primary key (rowid for jobs). */
  kept: { jobs: Set<number>; upload_grants: Set<string>; access_tokens: Set<string> };
  /** Rows of each table in all. */
  total: { jobs: number; upload_grants: number; access_tokens: number };
}

const LATE = 600_000;

export function seedBacklog(db: Db, o: { orgId: string; corpusId: string; documents: number; recent: number; cutoff: number; activeJobs?: boolean }): Backlog {
  const kept: Backlog["kept"] = { jobs: new Set(), upload_grants: new Set(), access_tokens: new Set() };
  const doc = db.query(
    `INSERT INTO documents (id, org_id, corpus_id, filename, filename_lc, content_type, status, nb_pages, created_at, updated_at, blob_key, generation)
     VALUES (?, ?, ?, 'f.txt', 'f.txt', 'text/plain', ?, 0, ?, ?, ?, 0)`,
  );
  const grant = db.query(
    `INSERT INTO upload_grants (nonce, org_id, document_id, generation, blob_key, content_type, expires_at, created_at, completed_at, size, sha256)
     VALUES (?, ?, ?, 0, ?, 'text/plain', ?, ?, ?, ?, ?)`,
  );
  const job = db.query<{ id: number }, any[]>(
    `INSERT INTO jobs (org_id, document_id, generation, state, created_at, started_at, finished_at) VALUES (?, ?, 0, ?, ?, ?, ?) RETURNING id`,
  );
  const token = db.query(
    `INSERT INTO access_tokens (token_hash, org_id, user_id, scope, created_at, expires_at, revoked_at) VALUES (?, ?, 'u', '["corpus:read"]', ?, ?, ?)`,
  );
  const old = o.cutoff - 2 * 3_600_000;
  db.transaction(() => {
    for (let i = 0; i < o.documents; i++) {
      const recent = i >= o.documents - o.recent;
      const t = recent ? o.cutoff + LATE + 1000 + i : old + i;
      // One document in 10 still waits for its upload (half of them uploaded, not committed),
      // one in 10 has its URL expire and its job finish after the cutoff.
      const waiting = i % 10 === 3;
      const late = i % 10 === 7;
      const id = newId();
      doc.run(id, o.orgId, o.corpusId, waiting ? "AWAITING_UPLOAD" : "READY", t, t, `orgs/${o.orgId}/docs/${id}/original`);
      const nonce = newId();
      const uploaded = !waiting || i % 20 === 3;
      const expires = late ? o.cutoff + LATE : t + 900_000;
      grant.run(nonce, o.orgId, id, `orgs/${o.orgId}/docs/${id}/original`, expires, t, uploaded ? t + 1 : null, uploaded ? 40 : null, uploaded ? "ab".repeat(32) : null);
      if (waiting || late || recent) kept.upload_grants.add(nonce);
      if (!waiting) {
        // One job in 25 is still queued or running (it was created long ago all the same).
        const state = o.activeJobs === false ? "done" : i % 50 === 1 ? "queued" : i % 50 === 26 ? "running" : "done";
        const finished = state === "done" ? (late ? o.cutoff + LATE : t + 5000) : null;
        const j = job.get(o.orgId, id, state, t, state === "queued" ? null : t + 10, finished)!.id;
        if (state !== "done" || late || recent) kept.jobs.add(j);
      }
      if (i % 3 === 0) {
        // Tokens of an hour; one in 4 of them revoked with a day left, one in 4 expiring after the cutoff.
        const h = newId();
        const kind = (i / 3) % 4;
        const expiresAt = kind === 1 ? o.cutoff + 86_400_000 : kind === 2 ? o.cutoff + LATE : t + 3_600_000;
        token.run(h, o.orgId, t, expiresAt, kind === 1 ? t + 60_000 : null);
        if (kind === 1 || kind === 2 || recent) kept.access_tokens.add(h);
      }
    }
  })();
  const n = (t: string) => db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${t}`).get()!.n;
  return { kept, total: { jobs: n("jobs"), upload_grants: n("upload_grants"), access_tokens: n("access_tokens") } };
}

/** The rows each table holds now, by primary key. */
export function present(db: Db) {
  return {
    jobs: new Set(db.query<{ id: number }, []>("SELECT id FROM jobs").all().map((r) => r.id)),
    upload_grants: new Set(db.query<{ nonce: string }, []>("SELECT nonce FROM upload_grants").all().map((r) => r.nonce)),
    access_tokens: new Set(db.query<{ token_hash: string }, []>("SELECT token_hash FROM access_tokens").all().map((r) => r.token_hash)),
  };
}
