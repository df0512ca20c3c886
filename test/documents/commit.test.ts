import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { connect } from "node:net";
import { join } from "node:path";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
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

const unique = () => `content ${crypto.randomUUID()}\n`;

describe("POST /v1/doc/{id}/commit", () => {
  test("202 PROCESSING with size; job, storage usage and state change written together", async () => {
    const text = unique();
    const { init, commit } = await upload(a, corpusId, text);
    expect(commit.status).toBe(202);
    expect(commit.body).toEqual({ ...init.document, status: "PROCESSING", size: text.length, updatedAt: commit.body.updatedAt });
    expect(Date.parse(commit.body.updatedAt)).toBeGreaterThan(Date.parse(init.document.updatedAt));
    const jobs = sql<{ org_id: string; generation: number }>(k, "SELECT org_id, generation FROM jobs WHERE document_id = ?", init.document.id);
    expect(jobs).toEqual([{ org_id: a.orgId, generation: 0 }]);
    const usage = sql(k, "SELECT metric, op, amount, corpus_id, source FROM usage_events WHERE org_id = ? AND metric = 'storage' AND corpus_id = ?", a.orgId, corpusId);
    expect(usage).toContainEqual({ metric: "storage", op: "created", amount: text.length, corpus_id: corpusId, source: "document" });
    const [row] = sql<{ content_hash: string }>(k, "SELECT content_hash FROM documents WHERE id = ?", init.document.id);
    expect(row!.content_hash).toBe(new Bun.CryptoHasher("sha256").update(text).digest("hex"));
  });

  test("the content hash is the SHA-256 the storage route computed (its ETag); bytes stored without a PUT are hashed at commit", async () => {
    const sha = (t: string) => new Bun.CryptoHasher("sha256").update(t).digest("hex");
    const text = unique();
    const i = await initOk(a, { corpusId });
    const p = await put(i.uploadUrl, text);
    expect(p.headers.get("etag")).toBe(`"${sha(text)}"`);
    expect(sql(k, "SELECT size, sha256 FROM upload_grants WHERE document_id = ?", i.document.id)).toEqual([{ size: text.length, sha256: sha(text) }]);
    expect((await a.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
    expect(sql(k, "SELECT content_hash FROM documents WHERE id = ?", i.document.id)).toEqual([{ content_hash: sha(text) }]);

    const other = unique();
    const j = await initOk(a, { corpusId });
    const [{ blob_key }] = sql<{ blob_key: string }>(k, "SELECT blob_key FROM documents WHERE id = ?", j.document.id) as [{ blob_key: string }];
    await new FsBlobStore(join(k.dataDir, "blobs")).put(blob_key, other);
    expect((await a.api("POST", `/v1/doc/${j.document.id}/commit`)).status).toBe(202);
    expect(sql(k, "SELECT content_hash FROM documents WHERE id = ?", j.document.id)).toEqual([{ content_hash: sha(other) }]);
  });

  test("nothing uploaded → 400, the document stays AWAITING_UPLOAD and its URL stays usable", async () => {
    const i = await initOk(a, { corpusId });
    const r = await a.api("POST", `/v1/doc/${i.document.id}/commit`);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("Nothing was uploaded");
    expect((await a.api("GET", `/v1/doc/${i.document.id}`)).body.status).toBe("AWAITING_UPLOAD");
    expect((await put(i.uploadUrl, unique())).status).toBe(200);
    expect((await a.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
  });

  test("bytes that are not the declared type → 415, FAILED with the reason, never queued; replacement then recovers", async () => {
    const i = await initOk(a, { corpusId, contentType: "application/pdf", filename: "fake.pdf" });
    expect((await put(i.uploadUrl, "just text, no PDF header", "application/pdf")).status).toBe(200);
    const r = await a.api("POST", `/v1/doc/${i.document.id}/commit`);
    expect(r.status).toBe(415);
    expect(r.body.message).toContain("not a PDF");
    const d = (await a.api("GET", `/v1/doc/${i.document.id}`)).body;
    expect([d.status, d.statusMsg]).toEqual(["FAILED", r.body.message]);
    expect(sql(k, "SELECT 1 FROM jobs WHERE document_id = ?", i.document.id)).toEqual([]);
    expect("size" in d).toBe(false);

    const bad = await initOk(a, { corpusId });
    await put(bad.uploadUrl, new Uint8Array([0x66, 0xff, 0xfe, 0x00]), "text/plain");
    expect((await a.api("POST", `/v1/doc/${bad.document.id}/commit`)).status).toBe(415);
    const again = await a.api("PUT", `/v1/doc/${bad.document.id}/init`);
    expect(again.status).toBe(200);
    expect((await put(again.body.uploadUrl, unique())).status).toBe(200);
    expect((await a.api("POST", `/v1/doc/${bad.document.id}/commit`)).status).toBe(202);
  });

  test("duplicate content in the same corpus → 409 naming the existing document; other corpora and deleted documents do not count", async () => {
    const text = unique();
    const first = await upload(a, corpusId, text);
    expect(first.commit.status).toBe(202);
    const second = await upload(a, corpusId, text);
    expect(second.commit.status).toBe(409);
    expect(second.commit.body).toMatchObject({ status: 409, existingDocumentId: first.init.document.id });
    expect((await a.api("GET", `/v1/doc/${second.init.document.id}`)).body).toMatchObject({ status: "FAILED", statusMsg: expect.stringContaining(first.init.document.id) });
    const elsewhere = await upload(a, await corpus(a, "other"), text);
    expect(elsewhere.commit.status).toBe(202);
    await a.api("DELETE", `/v1/doc/${first.init.document.id}`);
    expect((await upload(a, corpusId, text)).commit.status).toBe(202);
  });

  test("READY → 200 with the document unchanged (idempotent); PROCESSING → 202 as is; FAILED → 409", async () => {
    const { init } = await upload(a, corpusId, unique());
    const id = init.document.id;
    // Let the real worker finish (READY or FAILED), then set the outcome directly in SQLite.
    await waitFor(async () => (await a.api("GET", `/v1/doc/${id}/status`)).body.status !== "PROCESSING", "ingestion to finish", 60_000, 50);
    sql(k, "UPDATE documents SET status = 'READY', tokens = 12, nb_words = 3 WHERE id = ?", id);
    const before = (await a.api("GET", `/v1/doc/${id}`)).body;
    const r = await a.api("POST", `/v1/doc/${id}/commit`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(before);
    expect(sql(k, "SELECT count(*) AS n FROM jobs WHERE document_id = ?", id)).toEqual([{ n: 1 }]);

    sql(k, "UPDATE documents SET status = 'PROCESSING' WHERE id = ?", id);
    const p = await a.api("POST", `/v1/doc/${id}/commit`);
    expect(p.status).toBe(p.body.status === "READY" ? 200 : 202);
    expect(sql(k, "SELECT count(*) AS n FROM jobs WHERE document_id = ?", id)).toEqual([{ n: 1 }]);

    sql(k, "UPDATE documents SET status = 'FAILED', status_msg = 'bad chunk key' WHERE id = ?", id);
    const f = await a.api("POST", `/v1/doc/${id}/commit`);
    expect(f.status).toBe(409);
    expect(f.body.message).toContain("bad chunk key");
  });

  test("an upload still being written → 409, nothing changes; once the PUT has answered, commit goes on", async () => {
    const i = await initOk(a, { corpusId });
    // A real PUT in flight: the request line, headers and half the declared body, the rest held back.
    const text = `slow upload ${unique()}`;
    const u = new URL(i.uploadUrl);
    const socket = connect(Number(u.port), u.hostname);
    let reply = "";
    socket.setEncoding("latin1").on("data", (d) => (reply += d));
    socket.write(`PUT ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\ncontent-type: text/plain\r\ncontent-length: ${text.length}\r\n\r\n${text.slice(0, 10)}`);
    await waitFor(() => sql<{ claimed_at: number | null }>(k, "SELECT claimed_at FROM upload_grants WHERE document_id = ?", i.document.id)[0]?.claimed_at != null, "the PUT to claim its URL");
    const r = await a.api("POST", `/v1/doc/${i.document.id}/commit`);
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("being written");
    expect((await a.api("GET", `/v1/doc/${i.document.id}`)).body.status).toBe("AWAITING_UPLOAD");

    socket.write(text.slice(10));
    await waitFor(() => reply.includes("\r\n\r\n"), "the PUT's answer");
    socket.destroy();
    expect(reply).toStartWith("HTTP/1.1 200");
    expect((await a.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
  });

  test("another organization's document → 404, untouched", async () => {
    const i = await initOk(a, { corpusId });
    await put(i.uploadUrl, unique());
    expect((await b.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(404);
    expect((await a.api("GET", `/v1/doc/${i.document.id}`)).body.status).toBe("AWAITING_UPLOAD");
    expect((await a.api("POST", `/v1/doc/${crypto.randomUUID()}/commit`)).status).toBe(404);
  });
});
