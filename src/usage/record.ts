import type { Db } from "../store/db.ts";

/**
 * metric: what is counted. op: "created" / "removed" for counters and storage bytes,
 * "used" for tokens. source tells post tokens from document tokens (corpus scope counts
 * posts only).
 */
export type UsageMetric = "corpora" | "sessions" | "posts" | "storage" | "tokens";
export type UsageOp = "created" | "removed" | "used";

export interface UsageEvent {
  metric: UsageMetric;
  op: UsageOp;
  amount: number;
  at: number;
  userId?: string | null;
  corpusId?: string | null;
  source?: "post" | "document" | null;
}

/** The rollup scopes of usage_daily; `subject` is "" at org scope, else the user or corpus id. */
export type UsageScope = "org" | "user" | "corpus";

const DAY_MS = 86_400_000;

const UPSERT_DAILY = `
  INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (org_id, scope, subject, day, metric, op, source) DO UPDATE SET amount = amount + excluded.amount`;

/**
 * Call inside the transaction of the change being counted, so the count is exact. The event
 * row and its three daily rollup rows are written together (a savepoint when nested), so the
 * rollup never disagrees with the events.
 */
export function recordUsage(db: Db, orgId: string, e: UsageEvent): void {
  if (e.amount === 0) return;
  const day = Math.floor(e.at / DAY_MS);
  const source = e.source ?? "";
  const daily = db.query(UPSERT_DAILY);
  db.transaction(() => {
    db.query(
      "INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(orgId, e.at, e.metric, e.op, e.amount, e.userId ?? null, e.corpusId ?? null, e.source ?? null);
    daily.run(orgId, "org", "", day, e.metric, e.op, source, e.amount);
    if (e.userId) daily.run(orgId, "user", e.userId, day, e.metric, e.op, source, e.amount);
    if (e.corpusId) daily.run(orgId, "corpus", e.corpusId, day, e.metric, e.op, source, e.amount);
  })();
}
