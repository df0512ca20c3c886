import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "../posts/helpers.ts";

const DAY = 86_400_000;
let k: Kbqa;
let org: Org;
const clockFile = join(tmpdir(), `kbqa-usage-flows-${crypto.randomUUID()}`);

beforeAll(async () => {
  k = await startKbqa({ flags: ["--test-fake-time-file", clockFile] });
  org = await k.org("usage-flows");
}, 120_000);
afterAll(async () => {
  await k?.stop();
  rmSync(clockFile, { force: true });
});

test("documents, sessions and posts counted by the real flows; corpus-scope tokens are the posts' only", async () => {
  const c = await corpus(org, "flows");
  const docId = await ingest(k, org, c, "guide.md", "# Guide\n\nThe reset button is behind the left panel. Hold it for ten seconds.\n");
  const doc = (await org.api("GET", `/v1/doc/${docId}`)).body;
  expect(doc.tokens).toBeGreaterThan(0);
  const s1 = await session(org, [c]);
  const s2 = await session(org, [c]);
  const exchange = (await ask(org, s1, "Where is the reset button?")).body;
  expect(exchange.answer.owner).toBe("SYSTEM");
  expect((await org.api("DELETE", `/v1/post/${exchange.query.id}`)).status).toBe(200);
  expect((await org.api("DELETE", `/v1/session/${s2}`)).status).toBe(200);
  expect((await org.api("DELETE", `/v1/doc/${docId}`)).status).toBe(200);

  writeFileSync(clockFile, String(Date.now() + 2 * DAY));
  const all = (await org.api("GET", "/v1/usage/all?timeframe=Day")).body;
  const user = (await org.api("GET", "/v1/usage/user/user-1?timeframe=Day")).body;
  const byCorpus = (await org.api("GET", `/v1/usage/corpus/${c}?timeframe=Day`)).body;

  const postTokens = byCorpus.tokens.total;
  expect(postTokens).toBeGreaterThan(0);
  expect(all.tokens).toEqual({ total: doc.tokens + postTokens, inPeriod: doc.tokens + postTokens });
  expect(user.tokens).toEqual(all.tokens);
  expect(byCorpus.tokens.inPeriod).toBe(postTokens);

  for (const r of [all, user, byCorpus]) {
    expect(r.sessions).toEqual({ total: 2, live: 1, created: 2, removed: 1 });
    expect(r.posts).toEqual({ total: 2, live: 1, created: 2, removed: 1 });
    expect(r.storage).toEqual({ total: doc.size, live: 0, created: doc.size, removed: doc.size });
  }
  expect(all.corpora).toEqual({ total: 1, live: 1, created: 1, removed: 0 });
  expect([user.corpora, byCorpus.corpora]).toEqual([null, null]);

  // Deleting the corpus cascades to its live session: that removal is counted too.
  rmSync(clockFile, { force: true });
  expect((await org.api("DELETE", `/v1/corpus/${c}`)).status).toBe(200);
  writeFileSync(clockFile, String(Date.now() + 2 * DAY));
  const after = (await org.api("GET", `/v1/usage/corpus/${c}?timeframe=Day`)).body;
  expect(after.sessions).toEqual({ total: 2, live: 0, created: 2, removed: 2 });
  const weekly = (await org.api("GET", "/v1/usage/all?timeframe=Week")).body;
  expect(weekly.corpora.live).toBe(0);
});
