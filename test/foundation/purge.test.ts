import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put, sql } from "../documents/helpers.ts";

// Spent bookkeeping rows (finished jobs, spent upload grants, expired access tokens) are deleted
// in the background (src/store/purge.ts). A row's own timestamps stand for time passing: moving a
// token's created_at and expires_at back makes it expired for the authentication as much as for
// the purge, since both read that row. Upload URLs carry their expiry in their signature, so
// those tests use a short --upload-url-ttl and real time instead.

const HOUR = 3_600_000;
const withToken = (t: string) => ({ "x-access-token": t });

async function mint(k: Kbqa, o: Org, ttl = 3600): Promise<string> {
  const r = await o.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"], ttl });
  if (r.status !== 200) throw new Error(`mint: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.token;
}
const hashOf = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");
const tokenRows = (k: Kbqa, token: string) => sql<{ n: number }>(k, "SELECT count(*) AS n FROM access_tokens WHERE token_hash = ?", hashOf(token))[0]!.n;
/** Moves tokens `ms` back in time: minted and expiring that much earlier. */
function shiftTokens(k: Kbqa, ms: number, ...tokens: string[]) {
  for (const t of tokens) sql(k, "UPDATE access_tokens SET created_at = created_at - ?, expires_at = expires_at - ? WHERE token_hash = ?", ms, ms, hashOf(t));
}
/** A token minted for an hour, an hour and a second ago. */
async function expired(k: Kbqa, o: Org): Promise<string> {
  const t = await mint(k, o, 3600);
  shiftTokens(k, HOUR + 1000, t);
  return t;
}
/** What a client sees of a token: the answer to using it. */
async function seenOf(k: Kbqa, token: string) {
  const use = await k.request("GET", "/v1/corpus/", undefined, withToken(token));
  return { use: [use.status, use.body.message] };
}
async function uploadReady(k: Kbqa, o: Org, corpusId: string, text: string) {
  const i = await initOk(o, { corpusId });
  expect((await put(i.uploadUrl, text, "text/plain")).status).toBe(200);
  expect((await o.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
  await waitFor(async () => (await o.api("GET", `/v1/doc/${i.document.id}/status`)).body.status === "READY", "READY");
  return i;
}

describe("with a margin of 60 s", () => {
  let k: Kbqa;
  let o: Org;
  let corpusId: string;
  beforeAll(async () => {
    k = await startKbqa({ flags: ["--purge-after", "60", "--purge-interval", "1"] });
    o = await k.org();
    corpusId = await corpus(o);
  }, 60_000);
  afterAll(() => k?.stop());

  // A pass walks a table in the order its rows were created and stops at the first one created
  // within the margin, so a test that moves rows back in time moves every earlier row too: each
  // row asserted kept below was created before the margin, and so judged by the pass that
  // removed a row after it.
  const count = (table: string, id: string) => sql<{ n: number }>(k, `SELECT count(*) AS n FROM ${table} WHERE document_id = ?`, id)[0]!.n;

  test("finished jobs and spent grants go once the margin has passed, and nothing a client reads changes", async () => {
    const gone = await uploadReady(k, o, corpusId, "Pumps are serviced every spring by the facilities team.");
    const kept = await uploadReady(k, o, corpusId, "Invoices are approved by the budget owner.");
    const observe = async (i: { document: { id: string }; uploadUrl: string }) => ({
      doc: (await o.api("GET", `/v1/doc/${i.document.id}`)).body,
      status: (await o.api("GET", `/v1/doc/${i.document.id}/status`)).body,
      replay: (await put(i.uploadUrl, "again", "text/plain")).status,
    });
    const observeAll = async () => ({
      gone: await observe(gone),
      kept: await observe(kept),
      list: (await o.api("GET", `/v1/doc/?corpusId=${corpusId}`)).body,
      usage: (({ created, removed, tokens }) => ({ created, removed, tokens }))((await o.api("GET", "/v1/usage/all?timeframe=Day")).body),
    });
    const before = await observeAll();
    expect([before.gone.replay, before.kept.replay]).toEqual([412, 412]);
    // Both created two hours ago; the first document's job finished and its URL expired then,
    // the second's only 10 s ago.
    for (const [table, spentAt] of [["jobs", "finished_at"], ["upload_grants", "expires_at"]]) {
      sql(k, `UPDATE ${table} SET created_at = created_at - ? WHERE document_id IN (?, ?)`, 2 * HOUR, gone.document.id, kept.document.id);
      sql(k, `UPDATE ${table} SET ${spentAt} = ? WHERE document_id = ?`, Date.now() - HOUR, gone.document.id);
      sql(k, `UPDATE ${table} SET ${spentAt} = ? WHERE document_id = ?`, Date.now() - 10_000, kept.document.id);
    }
    await waitFor(() => count("jobs", gone.document.id) + count("upload_grants", gone.document.id) === 0, "the first document's job and grant to be purged");
    expect([count("jobs", kept.document.id), count("upload_grants", kept.document.id)]).toEqual([1, 1]);
    expect(await observeAll()).toEqual(before);
    // The document whose rows went can still be given new content and ingested again.
    const id = gone.document.id;
    const again = await o.api("PUT", `/v1/doc/${id}/init`, {});
    expect(again.status).toBe(200);
    expect((await put(again.body.uploadUrl, "Valves are checked every autumn.", "text/plain")).status).toBe(200);
    expect((await o.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
    await waitFor(async () => (await o.api("GET", `/v1/doc/${id}/status`)).body.status === "READY", "READY again");
  }, 90_000);

  test("an expired token goes after the margin; a revoked one that has not expired stays refused, its row kept", async () => {
    // Minted two hours ago: `old` for an hour, `within` for 2 h less 10 s, `revoked` for a day.
    const old = await mint(k, o, 3600);
    const within = await mint(k, o, 7190);
    const revoked = await mint(k, o, 86400);
    expect((await o.api("DELETE", `/v1/auth/access-token/${revoked}`)).status).toBe(200);
    const before = { within: await seenOf(k, within), revoked: await seenOf(k, revoked) };
    shiftTokens(k, 2 * HOUR, old, within, revoked);
    await waitFor(() => tokenRows(k, old) === 0, "the expired token to be purged");
    expect([tokenRows(k, within), tokenRows(k, revoked)]).toEqual([1, 1]);
    expect((await seenOf(k, within)).use).toEqual([403, "Access token expired"]);
    expect(await seenOf(k, revoked)).toEqual(before.revoked);
    expect(before.revoked.use).toEqual([403, "Invalid access token"]);
    expect((await o.api("DELETE", `/v1/auth/access-token/${revoked}`)).status).toBe(404);
  }, 60_000);
});

describe("with no margin and 8-second upload URLs", () => {
  let k: Kbqa;
  let o: Org;
  let corpusId: string;
  beforeAll(async () => {
    k = await startKbqa({ flags: ["--purge-after", "0", "--purge-interval", "1", "--upload-url-ttl", "8"] });
    o = await k.org();
    corpusId = await corpus(o);
  }, 60_000);
  afterAll(() => k?.stop());

  const grants = (id: string) => sql<{ n: number }>(k, "SELECT count(*) AS n FROM upload_grants WHERE document_id = ?", id)[0]!.n;

  test("a used upload URL answers 412 on replay after purges until it expires; then its row goes and it answers 403 as any expired URL", async () => {
    const i = await initOk(o, { corpusId });
    const expires = Date.parse(i.expiresAt);
    expect((await put(i.uploadUrl, "Badges are renewed at the front desk.", "text/plain")).status).toBe(200);
    expect((await o.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
    // Each replay after a pass that ran since the one before (an expired token minted for it is gone).
    const replays: number[] = [];
    for (;;) {
      const marker = await expired(k, o);
      await waitFor(() => tokenRows(k, marker) === 0, "a purge pass");
      if (Date.now() >= expires - 1000) break;
      replays.push((await put(i.uploadUrl, "replayed", "text/plain")).status);
      expect(grants(i.document.id)).toBe(1);
    }
    expect(replays.length).toBeGreaterThan(0);
    expect(new Set(replays)).toEqual(new Set([412]));
    await waitFor(() => grants(i.document.id) === 0, "the spent grant to be purged");
    expect((await put(i.uploadUrl, "replayed", "text/plain")).status).toBe(403);
    await waitFor(async () => (await o.api("GET", `/v1/doc/${i.document.id}/status`)).body.status === "READY", "READY");
    await waitFor(() => sql<{ n: number }>(k, "SELECT count(*) AS n FROM jobs WHERE document_id = ?", i.document.id)[0]!.n === 0, "the finished job to be purged");
    const content = await o.api("GET", `/v1/doc/${i.document.id}`);
    expect([content.status, content.body.status, content.body.size]).toEqual([200, "READY", "Badges are renewed at the front desk.".length]);
  }, 60_000);

  test("a revoked token that has not expired stays refused after purges", async () => {
    const revoked = await mint(k, o);
    expect((await o.api("DELETE", `/v1/auth/access-token/${revoked}`)).status).toBe(200);
    const before = await seenOf(k, revoked);
    const old = await expired(k, o);
    await waitFor(() => tokenRows(k, old) === 0, "the expired token to be purged");
    expect(tokenRows(k, revoked)).toBe(1);
    expect(await seenOf(k, revoked)).toEqual(before);
    expect(before.use).toEqual([403, "Invalid access token"]);
  }, 60_000);

  test("grants of documents still waiting for their upload stay: commit still tells an expired URL, and uses an upload not committed yet", async () => {
    const unused = await initOk(o, { corpusId });
    const uploaded = await initOk(o, { corpusId });
    const text = "Laptops are returned to IT on the last day.";
    expect((await put(uploaded.uploadUrl, text, "text/plain")).status).toBe(200);
    const spent = await uploadReady(k, o, corpusId, "Travel is booked through the portal.");
    // Both URLs expired, and a pass has run since: the committed document's grant is gone.
    await waitFor(() => Date.now() > Date.parse(uploaded.expiresAt) && grants(spent.document.id) === 0, "the committed document's grant to be purged");
    expect([grants(unused.document.id), grants(uploaded.document.id)]).toEqual([1, 1]);
    const late = await o.api("POST", `/v1/doc/${unused.document.id}/commit`);
    expect([late.status, late.body.message]).toEqual([
      400,
      `Nothing was uploaded before the upload URL expired (${unused.expiresAt}); PUT /v1/doc/${unused.document.id}/init gives a new one`,
    ]);
    expect((await o.api("POST", `/v1/doc/${uploaded.document.id}/commit`)).status).toBe(202);
    await waitFor(async () => (await o.api("GET", `/v1/doc/${uploaded.document.id}/status`)).body.status === "READY", "READY");
    expect((await o.api("GET", `/v1/doc/${uploaded.document.id}`)).body.size).toBe(text.length);
    // Now that both have moved on (FAILED, READY), their grants go too.
    await waitFor(() => grants(unused.document.id) + grants(uploaded.document.id) === 0, "their grants to be purged");
  }, 60_000);
});
