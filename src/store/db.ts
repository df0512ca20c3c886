import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Migration } from "./migration.ts";
import { migrations as auth } from "../auth/migrations.ts";
import { migrations as corpus } from "../corpus/migrations.ts";
import { migrations as documents } from "../documents/migrations.ts";
import { migrations as ingest } from "../ingest/migrations.ts";
import { migrations as chunks } from "../chunks/migrations.ts";
import { migrations as sessions } from "../sessions/migrations.ts";
import { migrations as agents } from "../agents/migrations.ts";
import { migrations as posts } from "../posts/migrations.ts";
import { migrations as usage } from "../usage/migrations.ts";
import type { Logger } from "../context.ts";
import { privateIfUnused } from "./data-dir-mode.ts";

/** Every domain owns its tables; they are applied in this order, each migration once. */
export const ALL_MIGRATIONS: Migration[] = [...auth, ...corpus, ...documents, ...ingest, ...chunks, ...sessions, ...agents, ...posts, ...usage];

export type Db = Database;

/**
 * Opens (and migrates) the metadata database. WAL plus a busy timeout lets the operator CLI
 * write keys while a server reads them, which is how a key change reaches the server's very
 * next request without any signalling.
 */
export function openDb(dataDir: string, log?: Logger): Db {
  mkdirSync(dataDir, { recursive: true });
  privateIfUnused(dataDir);
  const db = new Database(join(dataDir, "kbqa.sqlite"), { create: true, strict: true });
  // The busy timeout first: the journal-mode pragma takes a lock too, and without the timeout it
  // fails at once while another connection holds the file for a moment (a closing connection's
  // checkpoint, the CLI writing a key); test/foundation/open-db-waits-for-lock.test.ts.
  db.exec("PRAGMA busy_timeout = 10000");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  // Index-heavy reads (chunk metadata terms, usage rollups) are several times faster from a
  // memory map and a larger page cache than through read() calls.
  db.exec("PRAGMA mmap_size = 268435456");
  db.exec("PRAGMA cache_size = -65536");
  db.exec("PRAGMA temp_store = MEMORY");
  try {
    migrate(db, dataDir, log);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * The directory was migrated by a newer kbqa. This build would write tables whose meaning has
 * moved on (rows the newer one expects beside each write would be missing), so it refuses to
 * open it rather than run on it, saying so in one line (cli.ts).
 */
export class NewerDataDir extends Error {}

/**
 * Applies the migrations this directory has not had. On an upgrade (some were applied before),
 * each one is logged before and after, with its time: filling a new index over a big directory
 * takes seconds (sessions-002: 14 s at 111,000 sessions) during which the server does not answer
 * yet. A new directory gets them all silently.
 */
function migrate(db: Db, dataDir: string, log?: Logger) {
  db.exec("CREATE TABLE IF NOT EXISTS _migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const done = new Set(db.query<{ id: string }, []>("SELECT id FROM _migrations").all().map((r) => r.id));
  const known = new Set(ALL_MIGRATIONS.map((m) => m.id));
  const unknown = [...done].filter((id) => !known.has(id)).sort();
  if (unknown.length > 0) {
    throw new NewerDataDir(
      `the data directory ${dataDir} was upgraded by a newer kbqa (database migrations this version does not know: ${unknown.join(", ")}); run that version or a newer one, or restore the backup taken before the upgrade`,
    );
  }
  const upgrade = done.size > 0 ? log : undefined;
  for (const m of ALL_MIGRATIONS) {
    if (done.has(m.id)) continue;
    const t0 = performance.now();
    const applied = db.transaction(() => {
      // Another process (CLI next to a server) may have migrated in the meantime.
      if (db.query("SELECT 1 FROM _migrations WHERE id = ?").get(m.id)) return false;
      upgrade?.info("applying a database migration", { migration: m.id, dataDir });
      db.exec(m.sql);
      db.query("INSERT INTO _migrations (id, applied_at) VALUES (?, ?)").run(m.id, Date.now());
      return true;
    }).immediate();
    if (applied) upgrade?.info("database migration applied", { migration: m.id, ms: Math.round(performance.now() - t0) });
  }
}

/** JSON column helpers: the database stores TEXT, the API shows objects. */
export const toJson = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));
export function fromJson<T>(s: string | null | undefined, fallback: T): T {
  if (s == null) return fallback;
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
}
