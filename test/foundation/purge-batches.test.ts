import { expect, test } from "bun:test";
import { openDb } from "../../src/store/db.ts";
import { BATCH_ROWS, purgeBatch, purgeOnce } from "../../src/store/purge.ts";
import { FINISHED_JOBS } from "../../src/ingest/job-store.ts";
import { SPENT_GRANTS } from "../../src/storage/grants.ts";
import { EXPIRED_TOKENS } from "../../src/auth/tokens.ts";
import { present, seedBacklog } from "../helpers/purge-backlog.ts";
import { tempDir } from "../helpers/server.ts";

// The purge over a real database in a temporary directory: a backlog of spent rows among rows
// that must stay (src/store/purge.ts, test/helpers/purge-backlog.ts).
const RULES = [FINISHED_JOBS, SPENT_GRANTS, EXPIRED_TOKENS];
const ORG = "0b0c0d0e-0000-4000-8000-000000000001";
const CORPUS = "0b0c0d0e-0000-4000-8000-000000000002";
const CUTOFF = Date.parse("2026-01-01T00:00:00Z");

const only = <T>(all: Set<T>, keep: Set<T>) => [...all].filter((x) => keep.has(x)).length;

test("a pass interrupted part-way removes only spent rows, and the next one finishes the rest", async () => {
  using dir = tempDir();
  let db = openDb(dir.path);
  const b = seedBacklog(db, { orgId: ORG, corpusId: CORPUS, documents: 3000, recent: 200, cutoff: CUTOFF });
  let checks = 0;
  const stopped = await purgeOnce(db, RULES, CUTOFF, () => ++checks > 4);
  // Four batches of the first table at most, then nothing else.
  expect(stopped.jobs).toBeGreaterThan(0);
  expect(stopped.jobs).toBeLessThanOrEqual(4 * BATCH_ROWS);
  expect(stopped.upload_grants ?? 0).toBe(0);
  let now = present(db);
  expect(now.jobs.size).toBe(b.total.jobs - stopped.jobs);
  expect(only(now.jobs, b.kept.jobs)).toBe(b.kept.jobs.size);
  expect(now.upload_grants.size).toBe(b.total.upload_grants);
  expect(now.access_tokens.size).toBe(b.total.access_tokens);
  // A stop, a new start: the next pass begins from the start and finishes.
  db.close();
  db = openDb(dir.path);
  await purgeOnce(db, RULES, CUTOFF);
  now = present(db);
  expect(now).toEqual(b.kept);
  // Nothing left to do: another pass removes nothing.
  expect(await purgeOnce(db, RULES, CUTOFF)).toEqual({ jobs: 0, upload_grants: 0, access_tokens: 0 });
  db.close();
}, 60_000);

test("each batch looks at BATCH_ROWS rows at most and stops at the first row created after the cutoff", () => {
  using dir = tempDir();
  const db = openDb(dir.path);
  const b = seedBacklog(db, { orgId: ORG, corpusId: CORPUS, documents: 2000, recent: 100, cutoff: CUTOFF });
  const firstRecent = db.query<{ r: number }, [number]>("SELECT min(rowid) AS r FROM upload_grants WHERE created_at > ?").get(CUTOFF)!.r;
  let after = 0;
  let batches = 0;
  for (;;) {
    const x = purgeBatch(db, SPENT_GRANTS, after, CUTOFF);
    batches++;
    expect(x.after - after).toBeLessThanOrEqual(BATCH_ROWS);
    after = x.after;
    if (x.done) break;
  }
  // The walk ended just before the first recent grant, in as many batches as the rows before it need.
  expect(after).toBe(firstRecent - 1);
  expect(batches).toBe(Math.ceil((firstRecent - 1) / BATCH_ROWS) + ((firstRecent - 1) % BATCH_ROWS === 0 ? 1 : 0));
  expect(present(db).upload_grants).toEqual(b.kept.upload_grants);
  db.close();
});
