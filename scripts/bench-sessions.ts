/**
 * Session listings and searches (`GET /v1/session/`, `/q`, the deprecated `byUser` and
 * `byMetadata`, a widget visitor's own listing, a session's posts) over an organization with many
 * sessions, over real HTTP: p50/p99 of sequential requests, and the worst `/pub/ping` answered
 * by a second client pinging every 10 ms meanwhile (how long the event loop was held).
 *
 * Baseline in the same run, in-process, on a copy of the same database with migration
 * sessions-002 reverted (its indexes, table and triggers dropped, sessions_user back): the
 * statements as the version before it ran them (scripts/lib/sessions-search-previous.ts), so
 * with the previous schema's query plans. Every HTTP answer (total and the page's ids) is checked
 * against the baseline's.
 *
 * Rows are written straight into SQLite as the service writes them (sessions, their corpus
 * bindings in order, two posts for half of them), with widget-like and API-like metadata; a second
 * organization holds a tenth as many sessions with the same metadata, which must never show.
 *
 *   bun scripts/bench-sessions.ts [sessions=100000] [requests=20]
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa } from "../test/helpers/server.ts";
import { orderedId } from "../src/store/ids.ts";
import { previousSearch, UNDO_SESSIONS_002, type PreviousFilter } from "./lib/sessions-search-previous.ts";
import { mulberry32 } from "../test/helpers/seeded.ts";
import { watchPings } from "./lib/ping-watch.ts";

const SESSIONS = Number(process.argv[2] ?? 100_000);
const N = Number(process.argv[3] ?? 20);

const rnd = mulberry32(7);
const int = (n: number) => Math.floor(rnd() * n);
const pick = <T>(xs: readonly T[]) => xs[int(xs.length)]!;
const COUNTRIES = ["FR", "DE", "US", "GB", "ES", "IT", "NL", "BE", "CH", "SE", "PL", "PT", "IE", "AT", "DK", "NO", "FI", "CA", "BR", "JP"];
const PAGES = Array.from({ length: 50 }, (_, i) => `/docs/page-${i}`);
const TAGS = ["vip", "trial", "support", "sales"];

/** Three in ten are widget sessions without metadata; the rest carry a realistic mix. */
function metadata(i: number): Record<string, unknown> {
  if (rnd() < 0.3) return {};
  const r = rnd();
  const m: Record<string, unknown> = {
    channel: r < 0.6 ? "web" : r < 0.85 ? "slack" : "api",
    page: pick(PAGES),
    visitor: { country: pick(COUNTRIES), returning: rnd() < 0.4 },
    ab: int(4),
  };
  const tags = TAGS.filter(() => rnd() < 0.15);
  if (tags.length) m.tags = tags;
  if (rnd() < 0.2) m.crmId = `crm-${String(i).padStart(6, "0")}`;
  if (rnd() < 0.05) m.score = Math.round(rnd() * 1000) / 100;
  return m;
}

const k = await startKbqa();
const org = await k.org("bench");
const other = await k.org("other");
const corpus = async (o: typeof org, name: string) => (await o.api("POST", "/v1/corpus/", { name })).body.id as string;
const [cA, cB, cC] = [await corpus(org, "a"), await corpus(org, "b"), await corpus(org, "c")];
const cOther = await corpus(other, "x");
const jwt = await org.jwt({}, { expSeconds: 7200 });
const headers = { authorization: `Bearer ${jwt}` };

const db = new Database(join(k.dataDir, "kbqa.sqlite"), { strict: true });
db.exec("PRAGMA busy_timeout = 10000");
const insSession = db.query("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
const insBind = db.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, ?)");
const insPost = db.query(
  `INSERT INTO posts (id, org_id, session_id, user_id, owner, body, lang, agent_id, attachment, created_at)
   VALUES (?, ?, ?, ?, ?, ?, 'en', ?, ?, ?)`,
);
const START = Date.UTC(2025, 0, 1);
const AGENT = crypto.randomUUID();
const sample: { withPosts?: string; visitor?: string; crm?: string } = {};
function seedOrg(orgId: string, count: number, corpora: string[]) {
  for (let i0 = 0; i0 < count; i0 += 5000) {
    db.transaction(() => {
      for (let i = i0; i < Math.min(count, i0 + 5000); i++) {
        const id = crypto.randomUUID();
        // Widget visitors own one to three sessions each; five API users share three in ten.
        const user = rnd() < 0.3 ? `agent-${1 + int(5)}` : `visitor-${int(count / 2)}`;
        // About a minute apart over the year, with ties (same millisecond) now and then.
        const at = START + i * 300_000 + (rnd() < 0.05 ? 0 : int(1000));
        const m = metadata(i);
        const deleted = rnd() < 0.05;
        insSession.run(id, orgId, user, JSON.stringify(m), at, at, deleted ? at + 60_000 : null);
        if (orgId === org.orgId && m.crmId && !deleted && i >= count / 3 && !sample.crm) sample.crm = m.crmId as string;
        const r = rnd();
        const bound = corpora.length === 1 ? corpora : r < 0.7 ? [corpora[0]!] : r < 0.98 ? [corpora[1]!] : [corpora[2]!];
        if (corpora.length > 1 && rnd() < 0.1) bound.push(bound[0] === corpora[0] ? corpora[1]! : corpora[0]!);
        bound.forEach((c, pos) => insBind.run(id, orgId, c, pos));
        if (rnd() < 0.5) {
          insPost.run(orderedId(), orgId, id, user, "USER", "How do I reset my password?", AGENT, 0, at + 1000);
          insPost.run(orderedId(), orgId, id, null, "SYSTEM", "Open Settings, then Security [1].", AGENT, 1, at + 2000);
          if (orgId === org.orgId) sample.withPosts = id;
        }
        if (orgId === org.orgId && user.startsWith("visitor-")) sample.visitor = user;
      }
    }).immediate();
  }
}
const t0 = performance.now();
seedOrg(org.orgId, SESSIONS, [cA, cB, cC]);
seedOrg(other.orgId, Math.ceil(SESSIONS / 10), [cOther]);
console.log(`seeded ${SESSIONS} sessions (+${Math.ceil(SESSIONS / 10)} in another organization) in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

// The baseline's database: the same rows, the schema before sessions-002.
const previousPath = join(k.dataDir, "previous.sqlite");
db.exec(`VACUUM INTO '${previousPath}'`);
const prev = new Database(previousPath, { strict: true });
if (prev.query("SELECT 1 FROM _migrations WHERE id = 'sessions-002'").get()) {
  prev.exec(UNDO_SESSIONS_002);
}

const visitorToken = (await org.api("POST", "/v1/auth/access-token", { scope: ["session:read", "post:read"], userId: sample.visitor, ttl: 7200 })).body.token as string;
const deep = Math.floor((SESSIONS / 25) * 0.75); // a page three quarters of the way down
const crm = sample.crm!;
const json = (o: unknown) => encodeURIComponent(JSON.stringify(o));
interface Shape {
  name: string;
  path: string;
  f?: PreviousFilter;
  pageIndex?: number;
  owner?: string;
  headers?: Record<string, string>;
}
const SHAPES: Shape[] = [
  { name: "listing, newest first", path: "/v1/session/", f: {} },
  { name: `listing, page ${deep}`, path: `/v1/session/?pageIndex=${deep}`, f: {}, pageIndex: deep },
  { name: "q, no filter", path: "/v1/session/q", f: {} },
  { name: "userId (an API user, 6 %)", path: "/v1/session/q?userId=agent-1", f: { userId: "agent-1" } },
  { name: "userId (a visitor, 1-3)", path: `/v1/session/q?userId=${sample.visitor}`, f: { userId: sample.visitor } },
  { name: "corpusId (76 %)", path: `/v1/session/q?corpusId=${cA}`, f: { corpusId: cA } },
  { name: "corpusId (2 %)", path: `/v1/session/q?corpusId=${cC}`, f: { corpusId: cC } },
  { name: "corpusId + userId", path: `/v1/session/q?corpusId=${cB}&userId=agent-2`, f: { corpusId: cB, userId: "agent-2" } },
  { name: "key=channel value=web (42 %)", path: "/v1/session/q?key=channel&value=web", f: { key: "channel", value: "web" } },
  { name: `key=channel value=web, page ${Math.floor(deep / 2)}`, path: `/v1/session/q?key=channel&value=web&pageIndex=${Math.floor(deep / 2)}`, f: { key: "channel", value: "web" }, pageIndex: Math.floor(deep / 2) },
  { name: "key=crmId (one)", path: `/v1/session/q?key=crmId&value=${crm}`, f: { key: "crmId", value: crm } },
  { name: "key=ab value=2 (a number)", path: "/v1/session/q?key=ab&value=2", f: { key: "ab", value: "2" } },
  { name: "key=nope (none)", path: "/v1/session/q?key=nope&value=x", f: { key: "nope", value: "x" } },
  { name: 'json {"channel":"slack"}', path: `/v1/session/q?json=${json({ channel: "slack" })}`, f: { json: JSON.stringify({ channel: "slack" }) } },
  { name: 'json {"visitor":{"country":"FR"}}', path: `/v1/session/q?json=${json({ visitor: { country: "FR" } })}`, f: { json: JSON.stringify({ visitor: { country: "FR" } }) } },
  { name: 'json {"tags":["vip"]}', path: `/v1/session/q?json=${json({ tags: ["vip"] })}`, f: { json: JSON.stringify({ tags: ["vip"] }) } },
  { name: 'json {"ab":1,"visitor":{"returning":true}}', path: `/v1/session/q?json=${json({ ab: 1, visitor: { returning: true } })}`, f: { json: JSON.stringify({ ab: 1, visitor: { returning: true } }) } },
  { name: 'json {"channel":"web","crmId":…} (one)', path: `/v1/session/q?json=${json({ channel: "web", crmId: crm })}`, f: { json: JSON.stringify({ channel: "web", crmId: crm }) } },
  { name: 'json {"nope":1} (none)', path: `/v1/session/q?json=${json({ nope: 1 })}`, f: { json: JSON.stringify({ nope: 1 }) } },
  { name: "json + corpusId + userId", path: `/v1/session/q?json=${json({ channel: "web" })}&corpusId=${cA}&userId=agent-3`, f: { json: JSON.stringify({ channel: "web" }), corpusId: cA, userId: "agent-3" } },
  { name: "byUser (deprecated)", path: "/v1/session/byUser?userId=agent-4", f: { userId: "agent-4" } },
  { name: "byMetadata (deprecated)", path: "/v1/session/byMetadata?key=channel&value=api", f: { key: "channel", value: "api" } },
  { name: "widget visitor's own listing", path: "/v1/session/", f: {}, owner: sample.visitor, headers: { "x-access-token": visitorToken } },
  { name: "a session's posts", path: `/v1/post/?sessionId=${sample.withPosts}` },
];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
console.log(`| request | total | p50 / p99 ms | worst ping ms | previous statements in-process, p50 ms |`);
console.log(`|---|---|---|---|---|`);
let mismatches = 0;
for (const s of SHAPES) {
  const ms: number[] = [];
  let body: any;
  const pings = watchPings(`${k.url}/pub/ping`);
  for (let i = 0; i < N + 2; i++) {
    const t = performance.now();
    const r = await fetch(k.url + s.path, { headers: s.headers ?? headers });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`${s.path}: ${r.status} ${text}`);
    if (i >= 2) ms.push(performance.now() - t);
    body = JSON.parse(text);
  }
  const worst = await pings.stop();
  let base = "–";
  if (s.f) {
    const p = { pageIndex: s.pageIndex ?? 0, pageSize: 25 };
    const got = previousSearch(prev, org.orgId, s.f, p, s.owner);
    const items = Array.isArray(body) ? body : body.items;
    if (got.total !== (body.total ?? items.length) || JSON.stringify(got.ids) !== JSON.stringify(items.map((x: { id: string }) => x.id))) {
      mismatches++;
      console.error(`MISMATCH ${s.name}: previous total ${got.total}, HTTP ${body.total}`);
    }
    const times: number[] = [];
    for (let i = 0; i < Math.min(N, 10) + 1; i++) {
      const t = performance.now();
      previousSearch(prev, org.orgId, s.f, p, s.owner);
      if (i) times.push(performance.now() - t);
    }
    base = pct(times, 50).toFixed(1);
  }
  const total = body.total ?? (Array.isArray(body) ? body.length : "");
  console.log(`| ${s.name} | ${total} | ${pct(ms, 50).toFixed(1)} / ${pct(ms, 99).toFixed(1)} | ${worst.toFixed(0)} | ${base} |`);
}
console.log(mismatches ? `${mismatches} answers differ from the previous statements'` : "every answer equals the previous statements'");

// What the index costs: 1,000 sessions written (one transaction, two bindings each), with and
// without it; and migrating the previous schema's copy (the index filled from every row).
const writes = (d: Database, label: string) => {
  const ins = d.query("INSERT INTO sessions (id, org_id, user_id, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)");
  const bind = d.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, ?)");
  const t = performance.now();
  d.transaction(() => {
    for (let i = 0; i < 1000; i++) {
      const id = crypto.randomUUID();
      const at = START + (SESSIONS + i) * 300_000;
      ins.run(id, org.orgId, `visitor-x${i}`, JSON.stringify(metadata(i)), at, at);
      bind.run(id, org.orgId, cA, 0);
      bind.run(id, org.orgId, cB, 1);
    }
  })();
  console.log(`1,000 sessions written ${label}: ${(performance.now() - t).toFixed(0)} ms`);
};
const { migrations } = await import("../src/sessions/migrations.ts");
const m2 = migrations.find((m) => m.id === "sessions-002");
if (m2) {
  writes(prev, "without the index (previous schema)");
  writes(db, "with it");
  const t = performance.now();
  prev.transaction(() => prev.exec(m2.sql))();
  const rows = (prev.query("SELECT count(*) AS n FROM session_meta").get() as { n: number }).n;
  console.log(`migration sessions-002 on the previous schema's copy (${SESSIONS + Math.ceil(SESSIONS / 10) + 1000} sessions, ${rows} index rows): ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
db.close();
prev.close();
await k.stop();
if (mismatches) process.exit(1);
