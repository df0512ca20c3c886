import type { Migration } from "../store/migration.ts";

/**
 * One row per countable event, written in the same transaction as the change it counts
 * (see usage/record.ts). Reports sum these rows; nothing is recomputed from mutable tables.
 */
export const migrations: Migration[] = [
  {
    id: "usage-001",
    sql: `
      CREATE TABLE usage_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, org_id TEXT NOT NULL, at INTEGER NOT NULL,
        metric TEXT NOT NULL, op TEXT NOT NULL, amount INTEGER NOT NULL,
        user_id TEXT, corpus_id TEXT, source TEXT);
      CREATE INDEX usage_org_at ON usage_events(org_id, metric, at);
    `,
  },
  {
    // Daily rollup per scope (org / user / corpus), upserted with each event by recordUsage, so a
    // report sums at most a few thousand rows however many events were recorded. Every bucket
    // edge is a UTC midnight, so whole days add up to any timeframe exactly. Backfilled from the
    // events already recorded.
    id: "usage-002",
    sql: `
      CREATE TABLE usage_daily (
        org_id TEXT NOT NULL, scope TEXT NOT NULL, subject TEXT NOT NULL, day INTEGER NOT NULL,
        metric TEXT NOT NULL, op TEXT NOT NULL, source TEXT NOT NULL, amount INTEGER NOT NULL,
        PRIMARY KEY (org_id, scope, subject, day, metric, op, source)) WITHOUT ROWID;
      INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
        SELECT org_id, 'org', '', at / 86400000 - (at < 0 AND at % 86400000 != 0), metric, op, coalesce(source, ''), sum(amount)
        FROM usage_events GROUP BY 1, 2, 3, 4, 5, 6, 7;
      INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
        SELECT org_id, 'user', user_id, at / 86400000 - (at < 0 AND at % 86400000 != 0), metric, op, coalesce(source, ''), sum(amount)
        FROM usage_events WHERE user_id IS NOT NULL AND user_id != '' GROUP BY 1, 2, 3, 4, 5, 6, 7;
      INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
        SELECT org_id, 'corpus', corpus_id, at / 86400000 - (at < 0 AND at % 86400000 != 0), metric, op, coalesce(source, ''), sum(amount)
        FROM usage_events WHERE corpus_id IS NOT NULL AND corpus_id != '' GROUP BY 1, 2, 3, 4, 5, 6, 7;
    `,
  },
  {
    // Monthly rollup next to the daily one: Month and Year reports and lifetime totals read at
    // most a few hundred rows (12 per year per metric) instead of every day of the history.
    // month = year * 12 + (month - 1), in UTC. Backfilled from the daily rows.
    id: "usage-003",
    sql: `
      CREATE TABLE usage_monthly (
        org_id TEXT NOT NULL, scope TEXT NOT NULL, subject TEXT NOT NULL, month INTEGER NOT NULL,
        metric TEXT NOT NULL, op TEXT NOT NULL, source TEXT NOT NULL, amount INTEGER NOT NULL,
        PRIMARY KEY (org_id, scope, subject, month, metric, op, source)) WITHOUT ROWID;
      INSERT INTO usage_monthly (org_id, scope, subject, month, metric, op, source, amount)
        SELECT org_id, scope, subject,
          CAST(strftime('%Y', day * 86400, 'unixepoch') AS INTEGER) * 12 + CAST(strftime('%m', day * 86400, 'unixepoch') AS INTEGER) - 1,
          metric, op, source, sum(amount)
        FROM usage_daily GROUP BY 1, 2, 3, 4, 5, 6, 7;
    `,
  },
  {
    // The rollups are maintained by a trigger, so every writer of usage_events (recordUsage, and
    // the set-based INSERT … SELECT of cascades) feeds them in its own transaction. Rebuilt from
    // the events first, in case rows were inserted before the trigger existed.
    id: "usage-004",
    sql: `
      DELETE FROM usage_daily;
      DELETE FROM usage_monthly;
      INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
        SELECT org_id, 'org', '', at / 86400000 - (at < 0 AND at % 86400000 != 0), metric, op, coalesce(source, ''), sum(amount)
        FROM usage_events GROUP BY 1, 2, 3, 4, 5, 6, 7;
      INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
        SELECT org_id, 'user', user_id, at / 86400000 - (at < 0 AND at % 86400000 != 0), metric, op, coalesce(source, ''), sum(amount)
        FROM usage_events WHERE user_id IS NOT NULL AND user_id != '' GROUP BY 1, 2, 3, 4, 5, 6, 7;
      INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
        SELECT org_id, 'corpus', corpus_id, at / 86400000 - (at < 0 AND at % 86400000 != 0), metric, op, coalesce(source, ''), sum(amount)
        FROM usage_events WHERE corpus_id IS NOT NULL AND corpus_id != '' GROUP BY 1, 2, 3, 4, 5, 6, 7;
      INSERT INTO usage_monthly (org_id, scope, subject, month, metric, op, source, amount)
        SELECT org_id, scope, subject,
          CAST(strftime('%Y', day * 86400, 'unixepoch') AS INTEGER) * 12 + CAST(strftime('%m', day * 86400, 'unixepoch') AS INTEGER) - 1,
          metric, op, source, sum(amount)
        FROM usage_daily GROUP BY 1, 2, 3, 4, 5, 6, 7;
      CREATE TRIGGER usage_rollup AFTER INSERT ON usage_events BEGIN
        INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
          SELECT NEW.org_id, 'org', '', (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)), NEW.metric, NEW.op, coalesce(NEW.source, ''), NEW.amount WHERE 1
          ON CONFLICT (org_id, scope, subject, day, metric, op, source) DO UPDATE SET amount = amount + excluded.amount;
        INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
          SELECT NEW.org_id, 'user', NEW.user_id, (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)), NEW.metric, NEW.op, coalesce(NEW.source, ''), NEW.amount WHERE NEW.user_id IS NOT NULL AND NEW.user_id != ''
          ON CONFLICT (org_id, scope, subject, day, metric, op, source) DO UPDATE SET amount = amount + excluded.amount;
        INSERT INTO usage_daily (org_id, scope, subject, day, metric, op, source, amount)
          SELECT NEW.org_id, 'corpus', NEW.corpus_id, (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)), NEW.metric, NEW.op, coalesce(NEW.source, ''), NEW.amount WHERE NEW.corpus_id IS NOT NULL AND NEW.corpus_id != ''
          ON CONFLICT (org_id, scope, subject, day, metric, op, source) DO UPDATE SET amount = amount + excluded.amount;
        INSERT INTO usage_monthly (org_id, scope, subject, month, metric, op, source, amount)
          SELECT NEW.org_id, 'org', '', (CAST(strftime('%Y', (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)) * 86400, 'unixepoch') AS INTEGER) * 12 + CAST(strftime('%m', (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)) * 86400, 'unixepoch') AS INTEGER) - 1), NEW.metric, NEW.op, coalesce(NEW.source, ''), NEW.amount WHERE 1
          ON CONFLICT (org_id, scope, subject, month, metric, op, source) DO UPDATE SET amount = amount + excluded.amount;
        INSERT INTO usage_monthly (org_id, scope, subject, month, metric, op, source, amount)
          SELECT NEW.org_id, 'user', NEW.user_id, (CAST(strftime('%Y', (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)) * 86400, 'unixepoch') AS INTEGER) * 12 + CAST(strftime('%m', (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)) * 86400, 'unixepoch') AS INTEGER) - 1), NEW.metric, NEW.op, coalesce(NEW.source, ''), NEW.amount WHERE NEW.user_id IS NOT NULL AND NEW.user_id != ''
          ON CONFLICT (org_id, scope, subject, month, metric, op, source) DO UPDATE SET amount = amount + excluded.amount;
        INSERT INTO usage_monthly (org_id, scope, subject, month, metric, op, source, amount)
          SELECT NEW.org_id, 'corpus', NEW.corpus_id, (CAST(strftime('%Y', (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)) * 86400, 'unixepoch') AS INTEGER) * 12 + CAST(strftime('%m', (NEW.at / 86400000 - (NEW.at < 0 AND NEW.at % 86400000 != 0)) * 86400, 'unixepoch') AS INTEGER) - 1), NEW.metric, NEW.op, coalesce(NEW.source, ''), NEW.amount WHERE NEW.corpus_id IS NOT NULL AND NEW.corpus_id != ''
          ON CONFLICT (org_id, scope, subject, month, metric, op, source) DO UPDATE SET amount = amount + excluded.amount;
      END;
    `,
  },
];
