import type { Db } from "../store/db.ts";
import { dayOf, monthOf } from "./buckets.ts";

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


const upsert = (table: "usage_daily" | "usage_monthly", period: "day" | "month") => `
  INSERT INTO ${table} (org_id, scope, subject, ${period}, metric, op, source, amount) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (org_id, scope, subject, ${period}, metric, op, source) DO UPDATE SET amount = amount + excluded.amount`;
const UPSERT_DAILY = upsert("usage_daily", "day");
const UPSERT_MONTHLY = upsert("usage_monthly", "month");

/**
 * Call inside the transaction of the change being counted, so the count is exact. The event
 * row and its daily and monthly rollup rows (organization, user and corpus scope) are written
 * together (a savepoint when nested), so the rollups never disagree with the events.
 */
export function recordUsage(db: Db, orgId: string, e: UsageEvent): void {
  if (e.amount === 0) return;
  const day = dayOf(e.at);
  const source = e.source ?? "";
  const month = monthOf(e.at);
  const daily = db.query(UPSERT_DAILY);
  const monthly = db.query(UPSERT_MONTHLY);
  db.transaction(() => {
    db.query(
      "INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(orgId, e.at, e.metric, e.op, e.amount, e.userId ?? null, e.corpusId ?? null, e.source ?? null);
    const subjects: [UsageScope, string][] = [["org", ""]];
    if (e.userId) subjects.push(["user", e.userId]);
    if (e.corpusId) subjects.push(["corpus", e.corpusId]);
    for (const [scope, subject] of subjects) {
      daily.run(orgId, scope, subject, day, e.metric, e.op, source, e.amount);
      monthly.run(orgId, scope, subject, month, e.metric, e.op, source, e.amount);
    }
  })();
}
