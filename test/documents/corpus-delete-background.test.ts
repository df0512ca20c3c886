// Deleting a corpus used to mark every one of its documents and of the sessions bound to it
// deleted, with a usage event each, inside the deletion transaction: 5.5 s of event loop at 50,000
// documents and 18,000 sessions. The transaction now marks the corpus and records a corpus drop;
// the rows are marked in the background with their usage events, a bounded number per transaction
// (corpus/drops.ts). These tests check that the end state is the previous cascade's, the bound,
// that no read over HTTP sees the pending rows, what usage reports show meanwhile and after, that
// another organization is served meanwhile, and a SIGKILL right after the delete.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { corpusService } from "../../src/corpus/service.ts";
import { dropCorpusTurn, ROWS_PER_TURN } from "../../src/corpus/drops.ts";
import { recordUsage } from "../../src/usage/record.ts";
import { usageService } from "../../src/usage/service.ts";
import { CORPUS_MARKS } from "../../src/corpus/marks.ts";
import { startKbqa, tempDir, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "../posts/helpers.ts";
import { PREVIOUS_CORPUS_CASCADE } from "../../scripts/lib/corpus-delete-previous.ts";

const count = (db: Database, sql: string, ...args: (string | number)[]) => (db.query(sql).get(...args) as { n: number }).n;

function previousRemove(db: Db, org: string, corpusId: string, now: number) {
  db.transaction(() => {
    db.query("UPDATE corpora SET deleted_at = ? WHERE org_id = ? AND id = ?").run(now, org, corpusId);
    for (const sql of PREVIOUS_CORPUS_CASCADE) db.query(sql).run({ now, org, corpus: corpusId });
    recordUsage(db, org, { metric: "corpora", op: "removed", amount: 1, at: now, userId: "u0", corpusId });
  })();
}

/** Deterministic rows, the same in every database it seeds: ids are derived from the index. */
function seedSame(db: Db) {
  const ORG = "00000000-0000-4000-8000-000000000001";
  const id = (kind: number, i: number) => `00000000-0000-4000-8${kind.toString().padStart(3, "0")}-${i.toString().padStart(12, "0")}`;
  const C = { doomed: id(1, 1), kept: id(1, 2), earlier: id(1, 3) };
  db.query("INSERT INTO orgs (id, name, created_at) VALUES (?, 'o', 0)").run(ORG);
  db.transaction(() => {
    for (const [name, c] of Object.entries(C)) {
      db.query("INSERT INTO corpora (id, org_id, name, created_at, updated_at) VALUES (?, ?, ?, 0, 0)").run(c, ORG, name);
      recordUsage(db, ORG, { metric: "corpora", op: "created", amount: 1, at: 0, userId: "u0", corpusId: c });
    }
    const doc = db.prepare(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, created_at, updated_at, deleted_at, blob_key, generation)
      VALUES (?, ?, ?, 'f.md', 'text/markdown', 'READY', ?, ?, ?, ?, ?, 'b', 1)`);
    for (let i = 0; i < 2_600; i++) {
      // Sizes include none and 0 (no event); users include none; a few were deleted on their own before.
      const size = i % 50 === 0 ? null : i % 51 === 0 ? 0 : 100 + i;
      const user = i % 13 === 0 ? null : `u${i % 5}`;
      const corpusId = i % 10 === 9 ? C.kept : C.doomed;
      doc.run(id(2, i), ORG, corpusId, size, user, i, i, i % 97 === 0 ? 500 : null);
      if (size) recordUsage(db, ORG, { metric: "storage", op: "created", amount: size, at: i, userId: user, corpusId, source: "document" });
    }
    const s = db.prepare("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at, deleted_at) VALUES (?, ?, ?, '{}', ?, ?, ?)");
    const bind = db.prepare("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, ?)");
    for (let i = 0; i < 1_300; i++) {
      // Bound to doomed alone, after kept, or with the corpus deleted earlier; some deleted before.
      const corpora = i % 3 === 0 ? [C.doomed] : i % 3 === 1 ? [C.kept, C.doomed] : i % 7 === 0 ? [C.earlier, C.doomed] : [C.kept];
      s.run(id(3, i), ORG, `u${i % 4}`, i, i, i % 89 === 0 ? 600 : null);
      corpora.forEach((c, pos) => bind.run(id(3, i), ORG, c, pos));
      recordUsage(db, ORG, { metric: "sessions", op: "created", amount: 1, at: i, userId: `u${i % 4}`, corpusId: corpora[0] });
    }
  })();
  return { ORG, C };
}

describe("the corpus deletion transaction", () => {
  test("marks no document or session itself; the turns mark at most ROWS_PER_TURN rows each and end where the previous cascade did", () => {
    using dirOld = tempDir();
    using dirNew = tempDir();
    const before = openDb(dirOld.path);
    const after = openDb(dirNew.path);
    try {
      const DAY = 86_400_000;
      const T1 = 40 * DAY + 1_000; // the earlier corpus, then doomed a day later
      const T2 = 41 * DAY + 2_000;
      const { ORG, C } = seedSame(before);
      seedSame(after);

      previousRemove(before, ORG, C.earlier, T1);
      previousRemove(before, ORG, C.doomed, T2);

      // The earlier corpus' drop is left pending: its sessions, also bound to doomed, are not marked yet.
      corpusService(after, { now: () => T1 }).remove(ORG, "u0", C.earlier);
      corpusService(after, { now: () => T2 }).remove(ORG, "u0", C.doomed);
      const a = after as unknown as Database;
      expect(count(a, "SELECT count(*) AS n FROM documents WHERE deleted_at IN (?, ?)", T1, T2)).toBe(0);
      expect(count(a, "SELECT count(*) AS n FROM sessions WHERE deleted_at IN (?, ?)", T1, T2)).toBe(0);
      expect(count(a, "SELECT count(*) AS n FROM corpus_drops")).toBe(2);

      const marked = () =>
        count(a, "SELECT count(*) AS n FROM documents WHERE deleted_at IN (?, ?)", T1, T2) +
        count(a, "SELECT count(*) AS n FROM sessions WHERE deleted_at IN (?, ?)", T1, T2);
      const turns: number[] = [];
      for (let more = true; more; ) {
        const m0 = marked();
        const r = dropCorpusTurn(after, CORPUS_MARKS);
        expect(marked() - m0).toBe(r.rows);
        turns.push(r.rows);
        more = r.more;
        expect(turns.length).toBeLessThan(20);
      }
      expect(Math.max(...turns)).toBeLessThanOrEqual(ROWS_PER_TURN);
      expect(turns.filter((n) => n === ROWS_PER_TURN).length).toBeGreaterThanOrEqual(2);
      expect(count(a, "SELECT count(*) AS n FROM corpus_drops")).toBe(0);

      const b = before as unknown as Database;
      const same = (sql: string) => expect(a.query(sql).all()).toEqual(b.query(sql).all());
      same("SELECT id, corpus_id, deleted_at FROM documents ORDER BY id");
      same("SELECT id, deleted_at FROM sessions ORDER BY id");
      same("SELECT id, deleted_at FROM corpora ORDER BY id");
      same("SELECT org_id, document_id, created_at FROM chunk_drops ORDER BY document_id");
      same("SELECT org_id, document_id, generation, created_at FROM vector_drops ORDER BY document_id");
      // What every report reads: the rollups, to the unit.
      same("SELECT * FROM usage_daily ORDER BY org_id, scope, subject, day, metric, op, source");
      same("SELECT * FROM usage_monthly ORDER BY org_id, scope, subject, month, metric, op, source");
      const clock = { now: () => T2 + 3 * DAY };
      const [ub, ua] = [usageService(before, clock), usageService(after, clock)];
      for (const tf of ["Day", "Week", "Month", "Year"] as const) {
        expect(ua.organization(ORG, tf)).toEqual(ub.organization(ORG, tf));
        for (const u of ["u0", "u1", "u2", "u3", "u4"]) expect(ua.user(ORG, u, tf)).toEqual(ub.user(ORG, u, tf));
        for (const c of Object.values(C)) expect(ua.corpus(ORG, c, tf)).toEqual(ub.corpus(ORG, c, tf));
      }
      // Far fewer events than rows (3,500): one per user (and first corpus, for sessions) and batch.
      expect(count(a, "SELECT count(*) AS n FROM usage_events WHERE op = 'removed'")).toBeLessThan(100);
    } finally {
      before.close();
      after.close();
    }
  });
});

/** Many rows straight into the server's SQLite, older than anything made over HTTP, so the turns mark them first. */
function seedFiller(k: Kbqa, orgId: string, corpusId: string, docs: number, sessions: number) {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"));
  db.exec("PRAGMA busy_timeout = 10000");
  let bytes = 0;
  try {
    db.transaction(() => {
      const doc = db.prepare(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, created_at, updated_at, blob_key, generation)
        VALUES (?, ?, ?, 'filler.md', 'text/markdown', 'READY', ?, 'user-1', ?, ?, 'b', 1)`);
      for (let i = 0; i < docs; i++) {
        const size = 1000 + (i % 500);
        bytes += size;
        doc.run(crypto.randomUUID(), orgId, corpusId, size, i, i);
        recordUsage(db as unknown as Db, orgId, { metric: "storage", op: "created", amount: size, at: Date.now(), userId: "user-1", corpusId, source: "document" });
      }
      const s = db.prepare("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at) VALUES (?, ?, 'user-1', '{}', ?, ?)");
      const bind = db.prepare("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, 0)");
      for (let i = 0; i < sessions; i++) {
        const id = crypto.randomUUID();
        s.run(id, orgId, i, i);
        bind.run(id, orgId, corpusId);
        recordUsage(db as unknown as Db, orgId, { metric: "sessions", op: "created", amount: 1, at: Date.now(), userId: "user-1", corpusId });
      }
    }).immediate();
  } finally {
    db.close();
  }
  return bytes;
}

const counters = (r: any) => ({ corpora: r.corpora, sessions: r.sessions, posts: r.posts, storage: r.storage, tokens: r.tokens, series: r.series });

test("over HTTP: nothing of a deleted corpus is read while its rows are marked, another organization is served meanwhile, the end reads the same, and usage counts the removal once all is marked", async () => {
  await using k = await startKbqa();
  const a = await k.org("a");
  const b = await k.org("b");
  const doomed = await corpus(a, "doomed");
  const kept = await corpus(a, "kept");
  const bCorpus = await corpus(b, "b");
  const FILLER_DOCS = 20_000;
  const FILLER_SESSIONS = 4_000;
  const fillerBytes = seedFiller(k, a.orgId, doomed, FILLER_DOCS, FILLER_SESSIONS);
  const doc = await ingest(k, a, doomed, "reset.md", "# Reset\n\nThe reset button is behind the left panel. Hold it for ten seconds.\n");
  const keptDoc = await ingest(k, a, kept, "kept.md", "# Kept\n\nThe kept corpus is not deleted.\n");
  const bDoc = await ingest(k, b, bCorpus, "b.md", "# Other\n\nAnother organization's document.\n");
  const alone = await session(a, [doomed]);
  const second = await session(a, [kept, doomed]); // its removal counts for kept, its first corpus
  const survivor = await session(a, [kept]);
  const exchange = (await ask(a, alone, "Where is the reset button?")).body;
  expect(exchange.answer.owner).toBe("SYSTEM");
  const docSize = (await a.api("GET", `/v1/doc/${doc}`)).body.size as number;
  const chunkOf = (await a.api("GET", `/v1/chunk/q?documentId=${doc}`)).body.items[0].id as string;
  const bBefore = { corpus: (await b.api("GET", `/v1/corpus/${bCorpus}`)).body, docs: (await b.api("GET", `/v1/doc/?corpusId=${bCorpus}`)).body };
  const usage = async () => ({
    all: counters((await a.api("GET", "/v1/usage/all?timeframe=Day")).body),
    user: counters((await a.api("GET", "/v1/usage/user/user-1?timeframe=Day")).body),
    doomed: counters((await a.api("GET", `/v1/usage/corpus/${doomed}?timeframe=Day`)).body),
    kept: counters((await a.api("GET", `/v1/usage/corpus/${kept}?timeframe=Day`)).body),
  });
  const u0 = await usage();

  const ro = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    const unmarked = () => ({
      docs: count(ro, "SELECT count(*) AS n FROM documents WHERE corpus_id = ? AND deleted_at IS NULL", doomed),
      mine: count(ro, "SELECT count(*) AS n FROM documents WHERE id = ? AND deleted_at IS NULL", doc),
      sessions: count(ro, "SELECT count(*) AS n FROM sessions WHERE id IN (?, ?) AND deleted_at IS NULL", alone, second),
    });
    expect((await a.api("DELETE", `/v1/corpus/${doomed}`)).status).toBe(200);

    // Every read at once, so they are all answered between the first turns.
    const reads = async () => {
      const get = async (path: string, org: Org = a) => {
        const r = await org.api("GET", path);
        return { path, status: r.status, body: r.status === 200 ? r.body : r.body?.message };
      };
      return Promise.all([
        get(`/v1/corpus/${doomed}`),
        get(`/v1/doc/${doc}`), get(`/v1/doc/${doc}/status`), get(`/v1/doc/${doc}/summary`), get(`/v1/doc/${doc}/download-url`),
        get(`/v1/doc/${doc}/preview-urls?pages=0`), get(`/v1/post/attachment/${doc}/download-url`),
        get(`/v1/doc/?corpusId=${doomed}`), get(`/v1/doc/q?corpusId=${doomed}&q=filler*`), get(`/v1/doc/q?corpusId=${doomed}&sort=SIZE`),
        get(`/v1/chunk/?pageSize=100`), get(`/v1/chunk/q?corpusId=${doomed}`), get(`/v1/chunk/q?documentId=${doc}`),
        get(`/v1/chunk/q?key=kind&value=chunk`), get(`/v1/chunk/${chunkOf}`),
        get(`/v1/session/${alone}`), get(`/v1/session/${second}`), get(`/v1/session/${survivor}`),
        get(`/v1/session/?pageSize=100`), get(`/v1/session/q?corpusId=${doomed}`), get(`/v1/session/q?corpusId=${kept}`),
        get(`/v1/session/q?userId=user-1&pageSize=5`),
        get(`/v1/post/?sessionId=${alone}`), get(`/v1/post/${exchange.answer.id}`), get(`/v1/post/attachment/${exchange.answer.id}`),
        get(`/v1/doc/${keptDoc}`), get(`/v1/doc/?corpusId=${kept}`),
        get(`/v1/corpus/${bCorpus}`, b), get(`/v1/doc/${bDoc}`, b),
      ]);
    };
    const during = await reads();
    const pending = unmarked();
    const uDuring = await usage();
    // The reads above were answered while this organization's rows were still being marked.
    expect(pending.mine).toBe(1);
    expect(pending.sessions).toBe(2);
    expect(pending.docs).toBeGreaterThan(0);

    const status = Object.fromEntries(during.map((r) => [r.path, r.status]));
    expect(status).toEqual({
      [`/v1/corpus/${doomed}`]: 404,
      [`/v1/doc/${doc}`]: 404, [`/v1/doc/${doc}/status`]: 404, [`/v1/doc/${doc}/summary`]: 404, [`/v1/doc/${doc}/download-url`]: 404,
      [`/v1/doc/${doc}/preview-urls?pages=0`]: 404, [`/v1/post/attachment/${doc}/download-url`]: 404,
      [`/v1/doc/?corpusId=${doomed}`]: 200, [`/v1/doc/q?corpusId=${doomed}&q=filler*`]: 200, [`/v1/doc/q?corpusId=${doomed}&sort=SIZE`]: 200,
      "/v1/chunk/?pageSize=100": 200, [`/v1/chunk/q?corpusId=${doomed}`]: 200, [`/v1/chunk/q?documentId=${doc}`]: 200,
      "/v1/chunk/q?key=kind&value=chunk": 200, [`/v1/chunk/${chunkOf}`]: 403,
      [`/v1/session/${alone}`]: 404, [`/v1/session/${second}`]: 404, [`/v1/session/${survivor}`]: 200,
      "/v1/session/?pageSize=100": 200, [`/v1/session/q?corpusId=${doomed}`]: 200, [`/v1/session/q?corpusId=${kept}`]: 200,
      "/v1/session/q?userId=user-1&pageSize=5": 200,
      [`/v1/post/?sessionId=${alone}`]: 404, [`/v1/post/${exchange.answer.id}`]: 404, [`/v1/post/attachment/${exchange.answer.id}`]: 404,
      [`/v1/doc/${keptDoc}`]: 200, [`/v1/doc/?corpusId=${kept}`]: 200,
      [`/v1/corpus/${bCorpus}`]: 200, [`/v1/doc/${bDoc}`]: 200,
    });
    const body = (path: string) => during.find((r) => r.path === path)!.body;
    for (const p of [`/v1/doc/?corpusId=${doomed}`, `/v1/doc/q?corpusId=${doomed}&q=filler*`, `/v1/doc/q?corpusId=${doomed}&sort=SIZE`, `/v1/chunk/q?corpusId=${doomed}`, `/v1/chunk/q?documentId=${doc}`, `/v1/session/q?corpusId=${doomed}`]) {
      expect({ p, total: body(p).total, items: body(p).items }).toEqual({ p, total: 0, items: [] });
    }
    const liveChunks = body("/v1/chunk/?pageSize=100").items as { documentId: string }[];
    expect(liveChunks.length).toBeGreaterThan(0);
    expect(liveChunks.every((c) => c.documentId === keptDoc)).toBe(true);
    expect(body("/v1/chunk/q?key=kind&value=chunk").items.every((c: any) => c.documentId === keptDoc)).toBe(true);
    expect(body("/v1/session/?pageSize=100")).toMatchObject({ total: 1, items: [{ id: survivor }] });
    expect(body(`/v1/session/q?corpusId=${kept}`)).toMatchObject({ total: 1, items: [{ id: survivor }] });
    expect(body("/v1/session/q?userId=user-1&pageSize=5").total).toBe(1);
    expect(body(`/v1/doc/?corpusId=${kept}`).total).toBe(1);
    expect(body(`/v1/corpus/${bCorpus}`)).toEqual(bBefore.corpus);

    // Usage meanwhile: the corpus is counted removed at once; the bytes and sessions as their rows are marked.
    const removedBytes = fillerBytes + docSize;
    expect(uDuring.all.corpora.live).toBe(u0.all.corpora.live - 1);
    expect(uDuring.all.storage.live).toBeGreaterThanOrEqual(u0.all.storage.live - removedBytes);
    expect(uDuring.all.storage.live).toBeLessThanOrEqual(u0.all.storage.live);
    expect(uDuring.all.sessions.live).toBeGreaterThanOrEqual(u0.all.sessions.live - FILLER_SESSIONS - 2);

    // The other organization is served between the turns: its reads complete while rows remain.
    let servedWhilePending = 0;
    while (unmarked().mine === 1) {
      expect((await b.api("GET", `/v1/doc/?corpusId=${bCorpus}`)).body).toEqual(bBefore.docs);
      if (unmarked().mine === 1) servedWhilePending++;
    }
    expect(servedWhilePending).toBeGreaterThan(0);

    // (The vector drops of so many documents take a while; the SIGKILL test below waits for them.)
    await waitFor(
      () => count(ro, "SELECT count(*) AS n FROM corpus_drops") === 0 && count(ro, "SELECT count(*) AS n FROM chunk_drops") === 0,
      "the corpus and chunk drops to be carried out", 60_000, 50,
    );
    expect(unmarked()).toEqual({ docs: 0, mine: 0, sessions: 0 });
    const deletedAt = (ro.query("SELECT deleted_at AS t FROM corpora WHERE id = ?").get(doomed) as { t: number }).t;
    expect(ro.query("SELECT DISTINCT deleted_at AS t FROM documents WHERE corpus_id = ?").all(doomed)).toEqual([{ t: deletedAt }]);
    expect(count(ro, "SELECT count(*) AS n FROM chunks WHERE document_id = ? AND deleted_at IS NULL", doc)).toBe(0);

    // Marked or not, the same answers.
    const done = await reads();
    expect(done.map((r) => [r.path, r.status, r.path.includes("/session/") ? r.body.total : r.body])).toEqual(
      during.map((r) => [r.path, r.status, r.path.includes("/session/") ? r.body.total : r.body]),
    );
    // Usage once all is marked: the bytes and sessions stopped counting, at the deletion's time.
    const uDone = await usage();
    expect(uDone.all.storage.live).toBe(u0.all.storage.live - removedBytes);
    expect(uDone.all.sessions.live).toBe(u0.all.sessions.live - FILLER_SESSIONS - 2);
    expect(uDone.all.corpora.live).toBe(u0.all.corpora.live - 1);
    expect(uDone.doomed.storage.live).toBe(0);
    expect(uDone.doomed.sessions.live).toBe(0);
    expect(uDone.kept.sessions.live).toBe(u0.kept.sessions.live - 1);
    expect(uDone.kept.storage).toEqual(u0.kept.storage);
    expect(uDone.user.storage.live).toBe(u0.user.storage.live - removedBytes);
    expect(uDone.user.sessions.live).toBe(u0.user.sessions.live - FILLER_SESSIONS - 2);
  } finally {
    ro.close();
  }
}, 240_000);

test("over HTTP: a SIGKILL right after the delete leaves the marking to the next start, which ends where an uninterrupted one does", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  let k = first;
  try {
    const a = await first.org();
    const doomed = await corpus(a, "doomed");
    const kept = await corpus(a, "kept");
    const fillerBytes = seedFiller(first, a.orgId, doomed, 5_000, 1_500);
    const s = await session(a, [kept, doomed]);
    const usage = async (org: Org, kk: Kbqa) => {
      const jwt = await org.jwt();
      const h = { authorization: `Bearer ${jwt}` };
      return {
        all: counters((await kk.request("GET", "/v1/usage/all?timeframe=Day", undefined, h)).body),
        doomed: counters((await kk.request("GET", `/v1/usage/corpus/${doomed}?timeframe=Day`, undefined, h)).body),
        kept: counters((await kk.request("GET", `/v1/usage/corpus/${kept}?timeframe=Day`, undefined, h)).body),
      };
    };
    const before = await usage(a, first);
    expect((await a.api("DELETE", `/v1/corpus/${doomed}`)).status).toBe(200);
    await first.stop("SIGKILL");

    let db = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
    const left = count(db, "SELECT count(*) AS n FROM documents WHERE corpus_id = ? AND deleted_at IS NULL", doomed);
    db.close();
    k = await startKbqa({ dataDir, keepData: true });
    db = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
    try {
      await waitFor(() => count(db, "SELECT count(*) AS n FROM corpus_drops") === 0, "the corpus drop to be carried out", 60_000, 50);
      const deletedAt = (db.query("SELECT deleted_at AS t FROM corpora WHERE id = ?").get(doomed) as { t: number }).t;
      expect(db.query("SELECT DISTINCT deleted_at AS t FROM documents WHERE corpus_id = ?").all(doomed)).toEqual([{ t: deletedAt }]);
      expect(count(db, "SELECT count(*) AS n FROM sessions s JOIN session_corpora sc ON sc.session_id = s.id WHERE sc.corpus_id = ? AND (s.deleted_at IS NULL OR s.deleted_at != ?)", doomed, deletedAt)).toBe(0);
      expect(count(db, "SELECT count(*) AS n FROM sessions WHERE id = ? AND deleted_at = ?", s, deletedAt)).toBe(1);
      // One chunk drop and one vector drop per document, recorded as it was marked, and carried out.
      await waitFor(() => count(db, "SELECT count(*) AS n FROM chunk_drops") === 0 && count(db, "SELECT count(*) AS n FROM vector_drops") === 0,
        "the chunk and vector drops to be carried out", 60_000, 50);
    } finally {
      db.close();
    }
    // Every byte and session counted removed exactly once, across the kill.
    const after = await usage(a, k);
    expect(after.all.storage.live).toBe(before.all.storage.live - fillerBytes);
    expect(after.all.sessions.live).toBe(before.all.sessions.live - 1_501);
    expect(after.doomed.storage.live).toBe(0);
    expect(after.doomed.sessions.live).toBe(0);
    expect(after.kept.sessions.live).toBe(before.kept.sessions.live - 1);
    db = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
    try {
      expect(count(db, "SELECT sum(amount) AS n FROM usage_events WHERE corpus_id = ? AND op = 'removed' AND metric = 'storage'", doomed)).toBe(fillerBytes);
    } finally {
      db.close();
    }
    // The kill came before the turns were through: the restart did the rest.
    expect(left).toBeGreaterThan(0);
  } finally {
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 240_000);
