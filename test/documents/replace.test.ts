import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put, sql, upload } from "./helpers.ts";

let k: Kbqa;
let a: Org;
let b: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  corpusId = await corpus(a);
});
afterAll(() => k.stop());

const settled = (id: string) =>
  waitFor(async () => {
    const s = (await a.api("GET", `/v1/doc/${id}/status`)).body.status;
    return s === "READY" || s === "FAILED" ? s : null;
  }, "ingestion to settle", 60_000, 50);

/** A committed document made READY with counters, a summary and a chunk, as ingestion would leave it. */
async function readyDoc(text: string) {
  const { init } = await upload(a, corpusId, text);
  const id = init.document.id;
  await settled(id);
  sql(k, "UPDATE documents SET status = 'READY', tokens = 40, nb_words = 9, summary = 'old summary', nb_pages = 0 WHERE id = ?", id);
  sql(k, "INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, hash, created_at) VALUES (?, ?, ?, ?, 0, 999, 'h', 0)", crypto.randomUUID(), a.orgId, corpusId, id);
  return init;
}

describe("PUT /v1/doc/{id}/init (content replacement)", () => {
  test("from READY: AWAITING_UPLOAD, counters and summary dropped, chunks soft-deleted, usage removed, new URL; userId kept", async () => {
    const text = `replace me ${crypto.randomUUID()}`;
    const init = await readyDoc(text);
    const id = init.document.id;
    const r = await a.api("PUT", `/v1/doc/${id}/init`);
    expect(r.status).toBe(200);
    const { size, tokens, nbWords, ...rest } = (await a.api("GET", `/v1/doc/${id}`)).body;
    expect(r.body.document).toEqual({ ...rest, status: "AWAITING_UPLOAD" });
    expect([size, tokens, nbWords]).toEqual([undefined, undefined, undefined]);
    expect(r.body.document.userId).toBe(init.document.userId);
    expect(r.body.uploadUrl).not.toBe(init.uploadUrl);
    expect(new URL(r.body.uploadUrl).pathname).toBe(new URL(init.uploadUrl).pathname); // same object key
    const [row] = sql<{ generation: number; summary: string | null; content_hash: string | null }>(k, "SELECT generation, summary, content_hash FROM documents WHERE id = ?", id);
    expect(row).toEqual({ generation: 1, summary: null, content_hash: null });
    expect(sql(k, "SELECT count(*) AS n FROM chunks WHERE document_id = ? AND deleted_at IS NULL", id)).toEqual([{ n: 0 }]);
    const usage = sql(k, "SELECT op, amount FROM usage_events WHERE metric = 'storage' AND org_id = ? AND corpus_id = ? ORDER BY id", a.orgId, corpusId);
    expect(usage.slice(-2)).toEqual([{ op: "created", amount: text.length }, { op: "removed", amount: text.length }]);

    const next = `new content ${crypto.randomUUID()}`;
    expect((await put(r.body.uploadUrl, next)).status).toBe(200);
    const c = await a.api("POST", `/v1/doc/${id}/commit`);
    expect(c.status).toBe(202);
    expect(c.body.size).toBe(next.length);
    expect(readFileSync(join(k.dataDir, "blobs", "orgs", a.orgId, "docs", id, "original"), "utf8")).toBe(next);
    expect(sql(k, "SELECT generation FROM jobs WHERE document_id = ? ORDER BY id", id)).toEqual([{ generation: 0 }, { generation: 1 }]);
  });

  test("committing without a new upload re-ingests the previous content", async () => {
    const text = `keep me ${crypto.randomUUID()}`;
    const init = await readyDoc(text);
    const id = init.document.id;
    expect((await a.api("PUT", `/v1/doc/${id}/init`)).status).toBe(200);
    const c = await a.api("POST", `/v1/doc/${id}/commit`);
    expect(c.status).toBe(202);
    expect(c.body.size).toBe(text.length);
    expect(sql(k, "SELECT generation, state FROM jobs WHERE document_id = ? AND generation = 1", id)).toHaveLength(1);
  });

  test("from FAILED too; from AWAITING_UPLOAD or PROCESSING → 409", async () => {
    const i = await initOk(a, { corpusId });
    const r = await a.api("PUT", `/v1/doc/${i.document.id}/init`);
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("AWAITING_UPLOAD");
    sql(k, "UPDATE documents SET status = 'PROCESSING' WHERE id = ?", i.document.id);
    expect((await a.api("PUT", `/v1/doc/${i.document.id}/init`)).status).toBe(409);
    sql(k, "UPDATE documents SET status = 'FAILED', status_msg = 'x' WHERE id = ?", i.document.id);
    const f = await a.api("PUT", `/v1/doc/${i.document.id}/init`);
    expect(f.status).toBe(200);
    expect(f.body.document.status).toBe("AWAITING_UPLOAD");
    expect("statusMsg" in f.body.document).toBe(false);
  });

  test("needs doc:update (doc:create is not enough); another organization's document → 404", async () => {
    const init = await readyDoc(`scoped ${crypto.randomUUID()}`);
    const id = init.document.id;
    const mint = async (scope: string[]) => (await a.api("POST", "/v1/auth/access-token", { scope })).body.token as string;
    const create = await mint(["doc:create", "doc:read"]);
    expect((await k.request("PUT", `/v1/doc/${id}/init`, undefined, { "x-access-token": create })).status).toBe(403);
    expect((await b.api("PUT", `/v1/doc/${id}/init`)).status).toBe(404);
    expect((await a.api("GET", `/v1/doc/${id}`)).body.status).toBe("READY");
    const update = await mint(["doc:update"]);
    expect((await k.request("PUT", `/v1/doc/${id}/init`, undefined, { "x-access-token": update })).status).toBe(200);
    // The replacement can be finished with the same token: commit takes doc:update as well as doc:create.
    const commit = await k.request("POST", `/v1/doc/${id}/commit`, undefined, { "x-access-token": update });
    expect({ status: commit.status, state: commit.body.status }).toEqual({ status: 202, state: "PROCESSING" });
    expect(await settled(id)).toBe("READY");
  });
});
