import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { recordUsage } from "../../src/usage/record.ts";

const DAY = 86_400_000;
let k: Kbqa;
let a: Org;
let b: Org;
let clockFile: string;
/** Moves the usage reports' clock (only theirs: see src/usage/test-clock.ts). */
const reportAt = (ms: number) => writeFileSync(clockFile, String(ms));
const realTime = () => rmSync(clockFile, { force: true });
const sum = (r: any, f: (b: any) => number) => r.series.reduce((n: number, x: any) => n + f(x), 0);

beforeAll(async () => {
  clockFile = join(require("node:os").tmpdir(), `kbqa-usage-clock-${crypto.randomUUID()}`);
  k = await startKbqa({ flags: ["--test-fake-time-file", clockFile] });
  [a, b] = await Promise.all([k.org("usage-a"), k.org("usage-b")]);
});
afterAll(async () => {
  await k?.stop();
  realTime();
});

test("corpora created and soft-deleted through the API: totals include the bucket in progress, removed counts once completed", async () => {
  realTime();
  const c1 = (await a.api("POST", "/v1/corpus/", { name: "one" })).body;
  const c2 = (await a.api("POST", "/v1/corpus/", { name: "two" })).body;
  expect((await a.api("DELETE", `/v1/corpus/${c2.id}`)).status).toBe(200);
  reportAt(Date.now()); // pinned, so a run straddling midnight cannot move the report

  // Same day: every event is in the bucket in progress, so the series is all zeros but totals are not.
  const today = await a.api("GET", "/v1/usage/all?timeframe=Day");
  expect(today.status).toBe(200);
  expect(today.body.corpora).toEqual({ total: 2, live: 1, created: 0, removed: 0 });
  expect(sum(today.body, (x) => x.corpora.created)).toBe(0);
  expect(today.body.series.length).toBe(30);
  expect(Date.parse(today.body.to)).toBeLessThanOrEqual(Date.parse(today.body.timestamp));

  // Two days later the events sit in completed buckets.
  reportAt(Date.now() + 2 * DAY);
  const later = await a.api("GET", "/v1/usage/all?timeframe=Day");
  expect(later.body.corpora).toEqual({ total: 2, live: 1, created: 2, removed: 1 });
  expect([sum(later.body, (x) => x.corpora.created), sum(later.body, (x) => x.corpora.removed)]).toEqual([2, 1]);
  for (const tf of ["Week", "Month", "Year"]) {
    // A year ahead, whatever the calendar, the events are inside the reported range of each timeframe.
    reportAt(Date.now() + (tf === "Week" ? 8 : tf === "Month" ? 40 : 400) * DAY);
    const r = (await a.api("GET", `/v1/usage/all?timeframe=${tf}`)).body;
    expect([r.timeframe, r.corpora.created, r.corpora.removed]).toEqual([tf, 2, 1]);
  }

  // The corpus scope has no corpora counter, in the report or in any bucket.
  const corpus = await a.api("GET", `/v1/usage/corpus/${c1.id}?timeframe=Day`);
  expect(corpus.status).toBe(200);
  expect(corpus.body.corpora).toBeNull();
  expect(corpus.body.series.every((x: any) => !("corpora" in x))).toBe(true);
  // A soft-deleted corpus of one's own still has its report.
  expect((await a.api("GET", `/v1/usage/corpus/${c2.id}`)).status).toBe(200);
  // Organization B sees none of it.
  expect((await b.api("GET", "/v1/usage/all?timeframe=Day")).body.corpora).toEqual({ total: 0, live: 0, created: 0, removed: 0 });
  realTime();
});

test("tokens: posts and documents at organization and user scope, posts only at corpus scope; corpora null at user scope", async () => {
  realTime();
  const c = (await a.api("POST", "/v1/corpus/", { name: "tok" })).body;
  // Token events are written by the posts and documents domains; here they are recorded the same
  // way, on a second connection to the server's database, to isolate the report rules.
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { strict: true });
  db.exec("PRAGMA busy_timeout = 10000");
  const at = Date.now();
  db.transaction(() => {
    recordUsage(db, a.orgId, { metric: "tokens", op: "used", amount: 700, at, userId: "carol", corpusId: c.id, source: "document" });
    recordUsage(db, a.orgId, { metric: "tokens", op: "used", amount: 30, at, userId: "carol", corpusId: c.id, source: "post" });
  })();
  db.close();
  reportAt(at + 2 * DAY);
  const org = (await a.api("GET", "/v1/usage/all?timeframe=Day")).body;
  const user = (await a.api("GET", "/v1/usage/user/carol?timeframe=Day")).body;
  const corpus = (await a.api("GET", `/v1/usage/corpus/${c.id}?timeframe=Day`)).body;
  expect([org.tokens, user.tokens, corpus.tokens]).toEqual([
    { total: 730, inPeriod: 730 },
    { total: 730, inPeriod: 730 },
    { total: 30, inPeriod: 30 },
  ]);
  expect(sum(corpus, (x) => x.tokens)).toBe(30);
  expect(user.corpora).toBeNull();
  expect(user.series.every((x: any) => !("corpora" in x))).toBe(true);
  expect(user.organizationId).toBe(a.orgId);
  // Same user id in another organization: zeros, nothing revealed.
  const other = (await b.api("GET", "/v1/usage/user/carol?timeframe=Day")).body;
  expect(other.tokens).toEqual({ total: 0, inPeriod: 0 });
  realTime();
});

test("timeframe default is Month; an invalid value is 400 naming it", async () => {
  const def = await a.api("GET", "/v1/usage/all");
  expect([def.status, def.body.timeframe, def.body.series.length]).toEqual([200, "Month", 12]);
  for (const bad of ["day", "Quarter", "1"]) {
    const r = await a.api("GET", `/v1/usage/all?timeframe=${bad}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("timeframe");
  }
  expect((await a.api("GET", "/v1/usage/user/u?timeframe=Hour")).status).toBe(400);
});

test("another organization's corpus is 404; a malformed corpus id is 400", async () => {
  const theirs = (await b.api("POST", "/v1/corpus/", { name: "b's" })).body;
  const r = await a.api("GET", `/v1/usage/corpus/${theirs.id}?timeframe=Day`);
  expect([r.status, r.body.status]).toEqual([404, 404]);
  const unknown = await a.api("GET", `/v1/usage/corpus/${crypto.randomUUID()}`);
  expect(unknown.status).toBe(404);
  expect(unknown.body.message).toBe(r.body.message);
  expect((await a.api("GET", "/v1/usage/corpus/not-a-uuid")).status).toBe(400);
});

test("usage:read is the scope needed", async () => {
  const mint = async (scope: string[]) => (await a.api("POST", "/v1/auth/access-token", { scope })).body.token as string;
  const reader = await mint(["usage:read", "corpus:read"]);
  const other = await mint(["corpus:read", "usage:create"]);
  const ok = await k.request("GET", "/v1/usage/all?timeframe=Week", undefined, { "x-access-token": reader });
  expect([ok.status, ok.body.organizationId, ok.body.series.length]).toEqual([200, a.orgId, 12]);
  for (const path of ["/v1/usage/all", "/v1/usage/user/u", `/v1/usage/corpus/${crypto.randomUUID()}`]) {
    expect((await k.request("GET", path, undefined, { "x-access-token": other })).status).toBe(403);
  }
  expect((await k.request("GET", "/v1/usage/all")).status).toBe(403);
  const scoped = await a.jwt({ scope: ["corpus:read"] });
  expect((await k.request("GET", "/v1/usage/all", undefined, { authorization: `Bearer ${scoped}` })).status).toBe(403);
});

test("usage operations are published in the OpenAPI document", async () => {
  const doc = (await k.request("GET", "/openapi.json")).body;
  expect(Object.keys(doc.paths).filter((p) => p.startsWith("/v1/usage")).sort()).toEqual(["/v1/usage/all", "/v1/usage/corpus/{corpusId}", "/v1/usage/user/{userId}"]);
});
