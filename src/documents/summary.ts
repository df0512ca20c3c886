import type { Db } from "../store/db.ts";
import { AppError, conflict } from "../http/errors.ts";
import { getRow } from "./rows.ts";

export const SUMMARY_POLL_MS = 100;

/**
 * GET /v1/doc/{id}/summary completes when the summary exists. It polls SQLite (where the
 * ingestion worker writes documents.summary) every 100 ms for at most `waitMs`:
 * - summary present → it is returned;
 * - FAILED → 409 with the failure reason (no summary will come);
 * - AWAITING_UPLOAD → 409 at once (nothing committed, nothing to summarise);
 * - deleted meanwhile → 404;
 * - still none after waitMs → 504, and the client may simply ask again;
 * - the caller's credential revoked or expired meanwhile → `recheck` throws (403).
 */
export async function waitForSummary(
  db: Db, orgId: string, id: string, waitMs: number, signal?: AbortSignal, recheck?: () => Promise<void>,
): Promise<string> {
  const deadline = Date.now() + waitMs;
  for (let first = true; ; first = false) {
    if (!first) await recheck?.(); // checked by the auth plugin just before the first poll
    const r = getRow(db, orgId, id);
    if (r.summary != null) return r.summary;
    if (r.status === "FAILED") throw conflict(`Document ingestion failed, so it has no summary: ${r.status_msg ?? "no reason recorded"}`);
    if (r.status === "AWAITING_UPLOAD") throw conflict("Document has no committed content yet, so it has no summary; upload and commit it first");
    if (Date.now() >= deadline || signal?.aborted) {
      throw new AppError("TIMEOUT", `The summary is not ready after waiting ${waitMs} ms (status ${r.status}); retry later or poll GET /v1/doc/${id}/status`);
    }
    await Bun.sleep(Math.min(SUMMARY_POLL_MS, Math.max(0, deadline - Date.now())));
  }
}
