// Session search reads indexes since migration sessions-002 (src/sessions/search.ts): owners,
// corpus bindings and metadata values, each in the listing's order. The answers must be the ones
// the previous statements gave (scripts/lib/sessions-search-previous.ts: every session read and
// its metadata tested in JavaScript): same items, order, totals and pages, for random metadata
// and filters, after patches, deletions and a corpus deletion, and on a data directory migrated
// from before sessions-002 (the migration fills the index from the rows already there).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, tempDir, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { rng } from "../helpers/seeded.ts";
import { previousSearch, UNDO_SESSIONS_002, type PreviousFilter } from "../../scripts/lib/sessions-search-previous.ts";

/** True when the fragment's text holds a number JSON.parse reads as ±Infinity. */
const beyondRange = (json?: string): boolean => {
  const walk = (v: unknown): boolean => (typeof v === "number" ? !Number.isFinite(v) : v !== null && typeof v === "object" && Object.values(v).some(walk));
  return json !== undefined && walk(JSON.parse(json));
};

const data = tempDir("kbqa-session-index-");
let k: Kbqa;
let a: Org;
let b: Org;
let corpora: string[];
let bCorpus: string;
const USERS = ["alice", "bob", "carol"];
const random = rng(20261127);
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

const KEYS = ["channel", "n", "tags", "profile", "a.b", "", 'x"y', "s"];
const SCALARS: unknown[] = ["web", "app", "3", "true", "null", "", "é\u2028", "\ud800", 3, 0, -1.5, 1e21, 0.1, true, false, null];
const value = (depth: number): unknown => {
  const r = random();
  if (depth > 2 || r < 0.55) return pick(SCALARS);
  if (r < 0.8) return Array.from({ length: int(4) }, () => value(depth + 1));
  return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(["tier", "langs", "n", "x", "a.b"]), value(depth + 1)]));
};
const metadata = (): Record<string, unknown> => Object.fromEntries(KEYS.filter(() => random() < 0.4).map((key) => [key, value(0)]));
const stored: Record<string, unknown>[] = [];

/** A fragment: part of a stored metadata (often a hit), or drawn at random (often a miss). */
function fragment(): string {
  if (random() < 0.1) return pick(['{"n":1e400}', '{"s":"\\ud800"}', "{}", '{"tags":[]}', '{"profile":{}}', '{"n":3.0}', '{"a.b":-0}']);
  const from = random() < 0.7 && stored.length ? pick(stored) : metadata();
  const part = (v: unknown, depth: number): unknown => {
    if (Array.isArray(v)) return v.filter(() => random() < 0.5).map((e) => part(e, depth + 1));
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(() => random() < 0.6).map(([c, cv]) => [c, part(cv, depth + 1)]));
    return random() < 0.9 ? v : pick(SCALARS);
  };
  const f = part(from, 0) as Record<string, unknown>;
  return JSON.stringify(Object.keys(f).length || random() < 0.2 ? f : { [pick(KEYS)]: value(0) });
}

async function openSessions(n: number) {
  // Most written straight into SQLite (the triggers keep the index), with ties in created_at;
  // some through the API (the service's own writes).
  const db = new Database(join(data.path, "kbqa.sqlite"));
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    const ins = db.query("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)");
    const bind = db.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, ?)");
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const m = metadata();
        stored.push(m);
        const id = crypto.randomUUID();
        const at = 1_700_000_000_000 + int(n / 3) * 1000;
        ins.run(id, a.orgId, pick(USERS), JSON.stringify(m), at, at);
        const bound = corpora.filter(() => random() < 0.4);
        (bound.length ? bound : [corpora[0]!]).forEach((c, pos) => bind.run(id, a.orgId, c, pos));
        // The same metadata in another organization, which must never show.
        const other = crypto.randomUUID();
        ins.run(other, b.orgId, pick(USERS), JSON.stringify(m), at, at);
        bind.run(other, b.orgId, bCorpus, 0);
      }
    })();
  } finally {
    db.close();
  }
  for (let i = 0; i < 20; i++) {
    let m = metadata();
    // The API refuses lone surrogates (older rows may hold them: the direct inserts above do).
    while (/\\ud[89a-f]/i.test(JSON.stringify(m))) m = metadata();
    stored.push(m);
    const jwt = await a.jwt({}, { sub: pick(USERS) });
    const r = await k.request("POST", "/v1/session/", { corpusIds: [pick(corpora)], metadata: m }, { authorization: `Bearer ${jwt}` });
    expect({ status: r.status, body: r.body }).toMatchObject({ status: 200 });
  }
}

beforeAll(async () => {
  k = await startKbqa({ dataDir: data.path });
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  const corpus = async (o: Org) => (await o.api("POST", "/v1/corpus/", { name: "c" })).body.id as string;
  corpora = [await corpus(a), await corpus(a), await corpus(a)];
  bCorpus = await corpus(b);
  await openSessions(240);
});
afterAll(async () => {
  await k?.stop();
  data[Symbol.dispose]();
});

interface Case {
  f: PreviousFilter;
  pageIndex: number;
  pageSize: number;
  owner?: string;
}
function randomCase(): Case {
  const f: PreviousFilter = {};
  const r = random();
  if (r < 0.45) f.json = fragment();
  else if (r < 0.8) {
    f.key = pick([...KEYS, "nope"]);
    f.value = String(pick(["web", "3", "true", "null", "", "1e+21", "-1.5", "0.1", "é\u2028", "x", "3.0"]));
  }
  if (random() < 0.25) f.userId = pick([...USERS, "nobody"]);
  if (random() < 0.25) f.corpusId = pick(corpora);
  return { f, pageIndex: int(4), pageSize: pick([1, 3, 25, 100]), owner: random() < 0.1 ? pick(USERS) : undefined };
}

/** Every case answers over HTTP as the previous statements do on the same database. */
async function compare(cases: Case[]) {
  // Through k.request: the server may have been restarted since `a` was made.
  const jwt = { authorization: `Bearer ${await a.jwt()}` };
  const tokens = new Map<string, string>();
  for (const u of USERS) {
    tokens.set(u, (await k.request("POST", "/v1/auth/access-token", { scope: ["session:read"], userId: u }, jwt)).body.token);
  }
  const db = new Database(join(data.path, "kbqa.sqlite"), { readonly: true });
  try {
    let hits = 0;
    for (const c of cases) {
      const params = new URLSearchParams({ ...(c.f as Record<string, string>), pageIndex: String(c.pageIndex), pageSize: String(c.pageSize) });
      const path = `/v1/session/q?${params}`;
      const r = await k.request("GET", path, undefined, c.owner ? { "x-access-token": tokens.get(c.owner)! } : jwt);
      // A number beyond JSON's range (1e400) matched nothing and was echoed as null; it is refused now.
      if (beyondRange(c.f.json)) {
        expect([r.status, r.body.message], path).toEqual([400, expect.stringContaining("is beyond ±1.8e308")]);
        continue;
      }
      expect(r.status, path).toBe(200);
      const want = previousSearch(db, a.orgId, c.f, c, c.owner);
      expect({ path, total: r.body.total, ids: r.body.items.map((i: { id: string }) => i.id) }).toEqual({ path, total: want.total, ids: want.ids });
      if (want.total) hits++;
    }
    // The cases found something often enough to mean something.
    expect(hits).toBeGreaterThan(cases.length / 4);
  } finally {
    db.close();
  }
}

test("random filters answer as the previous statements did", async () => {
  await compare(Array.from({ length: 300 }, randomCase));
});

test("after patches, deletions and a corpus deletion, the answers still match", async () => {
  const all: string[] = [];
  for (let p = 0; ; p++) {
    const r = await a.api("GET", `/v1/session/?pageSize=100&pageIndex=${p}`);
    all.push(...r.body.items.map((i: { id: string }) => i.id));
    if (r.body.items.length < 100) break;
  }
  for (const id of all.filter(() => random() < 0.15)) {
    let m = metadata();
    while (/\\ud[89a-f]/i.test(JSON.stringify(m))) m = metadata();
    stored.push(m);
    expect((await a.api("PATCH", `/v1/session/${id}`, { metadata: m })).status).toBe(200);
  }
  for (const id of all.filter(() => random() < 0.1)) await a.api("DELETE", `/v1/session/${id}`);
  expect((await a.api("DELETE", `/v1/corpus/${corpora[2]}`)).status).toBe(200);
  await compare(Array.from({ length: 100 }, randomCase)); // while the drop may be pending
  await waitFor(() => {
    const db = new Database(join(data.path, "kbqa.sqlite"), { readonly: true });
    try {
      return db.query("SELECT 1 FROM corpus_drops LIMIT 1").get() == null;
    } finally {
      db.close();
    }
  }, "the corpus drop to finish");
  await compare(Array.from({ length: 100 }, randomCase));
});

test("a data directory from before sessions-002 is indexed by the migration and answers the same", async () => {
  await k.stop();
  const db = new Database(join(data.path, "kbqa.sqlite"));
  try {
    db.exec(UNDO_SESSIONS_002);
  } finally {
    db.close();
  }
  k = await startKbqa({ dataDir: data.path });
  const check = new Database(join(data.path, "kbqa.sqlite"), { readonly: true });
  try {
    expect(check.query("SELECT count(*) AS n FROM session_meta WHERE org_id = ?").get(a.orgId)).toMatchObject({ n: expect.any(Number) });
    expect((check.query("SELECT count(*) AS n FROM session_corpora WHERE created_at IS NULL").get() as { n: number }).n).toBe(0);
  } finally {
    check.close();
  }
  await compare(Array.from({ length: 150 }, randomCase));
});
