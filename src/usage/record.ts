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

/** Call inside the transaction of the change being counted, so the count is exact. */
export function recordUsage(db: Db, orgId: string, e: UsageEvent): void {
  if (e.amount === 0) return;
  db.query(
    "INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  ).run(orgId, e.at, e.metric, e.op, e.amount, e.userId ?? null, e.corpusId ?? null, e.source ?? null);
}
