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

/** The rollup scopes of usage_daily / usage_monthly; `subject` is "" at org scope, else the user or corpus id. */
export type UsageScope = "org" | "user" | "corpus";

/**
 * Call inside the transaction of the change being counted, so the count is exact. The daily and
 * monthly rollups the reports read are fed by a trigger on usage_events (usage/migrations.ts), so
 * a set-based INSERT … SELECT into usage_events is counted the same way.
 */
export function recordUsage(db: Db, orgId: string, e: UsageEvent): void {
  if (e.amount === 0) return;
  insertFor(db).run(orgId, e.at, e.metric, e.op, e.amount, e.userId ?? null, e.corpusId ?? null, e.source ?? null);
}

// bun:sqlite's query() cache is small, and this statement (with its trigger) is among the most
// used, so it is prepared once per connection.
const inserts = new WeakMap<Db, ReturnType<Db["prepare"]>>();
function insertFor(db: Db) {
  let st = inserts.get(db);
  if (!st) {
    st = db.prepare("INSERT INTO usage_events (org_id, at, metric, op, amount, user_id, corpus_id, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    inserts.set(db, st);
  }
  return st;
}
