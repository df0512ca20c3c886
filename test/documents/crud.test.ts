import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, sql, upload } from "./helpers.ts";

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

describe("GET, status, PATCH, DELETE", () => {
  test("PATCH applies present fields only; metadata, tags, chunk replace; {} chunk = default; rename moves nothing", async () => {
    const i = await initOk(a, { corpusId, filename: "old.txt", metadata: { a: 1, b: 2 }, tags: ["x"], chunk: { strategy: "basic" }, docCreate: "2020-01-01T00:00:00Z" });
    const id = i.document.id;
    const p1 = await a.api("PATCH", `/v1/doc/${id}`, { filename: "New Name.txt", metadata: { c: 3 }, tags: ["y", " y ", "z", ""] });
    expect(p1.status).toBe(200);
    expect(p1.body).toEqual({ ...i.document, filename: "New Name.txt", metadata: { c: 3 }, tags: ["y", "z"], updatedAt: p1.body.updatedAt });
    expect(Date.parse(p1.body.updatedAt)).toBeGreaterThan(Date.parse(i.document.updatedAt));
    const p2 = await a.api("PATCH", `/v1/doc/${id}`, { chunk: {}, tags: [], docUpdate: "2021-05-06T07:08:09Z", docCreate: null });
    expect(p2.body.tags).toEqual([]);
    await a.api("PATCH", `/v1/doc/${id}`, { tags: ["back"] });
    // null clears as at init: the list is empty, never null.
    expect((await a.api("PATCH", `/v1/doc/${id}`, { tags: null })).body.tags).toEqual([]);
    expect("chunk" in p2.body).toBe(false);
    expect("docCreate" in p2.body).toBe(false);
    expect(p2.body.docUpdate).toBe("2021-05-06T07:08:09.000Z");
    expect(p2.body.filename).toBe("New Name.txt");
    const p3 = await a.api("PATCH", `/v1/doc/${id}`, { chunk: { max_characters: 500 } });
    expect(p3.body.chunk).toEqual({ max_characters: 500 });
    expect(p3.body.metadata).toEqual({ c: 3 });
    const [row] = sql<{ blob_key: string }>(k, "SELECT blob_key FROM documents WHERE id = ?", id);
    expect(row!.blob_key).toBe(`orgs/${a.orgId}/docs/${id}/original`);
    expect(sql(k, "SELECT count(*) AS n FROM jobs WHERE document_id = ?", id)).toEqual([{ n: 0 }]);
  });

  test("PATCH validation: 400 naming the field; more than 32 tags refused", async () => {
    const i = await initOk(a, { corpusId });
    for (const [body, field] of [[{ filename: "" }, "filename"], [{ metadata: "x" }, "metadata"], [{ docUpdate: "nope" }, "docUpdate"], [{ tags: Array.from({ length: 33 }, (_, n) => `t${n}`) }, "tags"], [{ chunk: 3 }, "chunk"]] as const) {
      const r = await a.api("PATCH", `/v1/doc/${i.document.id}`, body);
      expect({ field, status: r.status, named: String(r.body.message).includes(field) }).toEqual({ field, status: 400, named: true });
    }
  });

  test("status: status, statusMsg and the additive stage/done/total progress", async () => {
    const i = await initOk(a, { corpusId });
    const id = i.document.id;
    expect((await a.api("GET", `/v1/doc/${id}/status`)).body).toEqual({ id, status: "AWAITING_UPLOAD", updatedAt: i.document.updatedAt });
    sql(k, "UPDATE documents SET status = 'PROCESSING', stage = 'embedding', stage_done = 3, stage_total = 10 WHERE id = ?", id);
    expect((await a.api("GET", `/v1/doc/${id}/status`)).body).toEqual({ id, status: "PROCESSING", stage: "embedding", done: 3, total: 10, updatedAt: i.document.updatedAt });
    sql(k, "UPDATE documents SET status = 'FAILED', status_msg = 'unknown chunk key: foo', stage = NULL, stage_done = NULL, stage_total = NULL WHERE id = ?", id);
    expect((await a.api("GET", `/v1/doc/${id}/status`)).body).toEqual({ id, status: "FAILED", statusMsg: "unknown chunk key: foo", updatedAt: i.document.updatedAt });
  });

  test("DELETE: acknowledgement, then 404 everywhere; chunks soft-deleted, bytes kept, storage usage removed", async () => {
    const text = `delete me ${crypto.randomUUID()}`;
    const { init } = await upload(a, corpusId, text);
    const id = init.document.id;
    sql(k, "INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, hash, created_at) VALUES (?, ?, ?, ?, 0, 999, 'h', 0)", crypto.randomUUID(), a.orgId, corpusId, id);
    const d = await a.api("DELETE", `/v1/doc/${id}`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ timestamp: expect.any(String), message: expect.stringContaining(id) });
    for (const [m, p] of [["GET", ""], ["GET", "/status"], ["PATCH", ""], ["DELETE", ""], ["POST", "/commit"], ["PUT", "/init"], ["GET", "/summary"], ["GET", "/download-url"], ["GET", "/preview-urls?pages=0"]] as const) {
      const r = await a.api(m, `/v1/doc/${id}${p}`, m === "PATCH" ? { filename: "x" } : undefined);
      expect({ m, p, status: r.status }).toEqual({ m, p, status: 404 });
    }
    expect(sql(k, "SELECT count(*) AS n FROM chunks WHERE document_id = ? AND deleted_at IS NULL", id)).toEqual([{ n: 0 }]);
    expect(sql(k, "SELECT count(*) AS n FROM documents WHERE id = ?", id)).toEqual([{ n: 1 }]); // soft: the row stays
    expect(existsSync(join(k.dataDir, "blobs", "orgs", a.orgId, "docs", id, "original"))).toBe(true);
    const usage = sql(k, "SELECT op, amount FROM usage_events WHERE metric = 'storage' AND org_id = ? ORDER BY id DESC LIMIT 1", a.orgId);
    expect(usage).toEqual([{ op: "removed", amount: text.length }]);
    const list = await a.api("GET", `/v1/doc/?corpusId=${corpusId}&pageSize=100`);
    expect(list.body.items.map((x: { id: string }) => x.id)).not.toContain(id);
  });

  test("deleting the corpus hides its documents and counts their bytes as removed", async () => {
    const c = await corpus(a, "doomed");
    const text = `in doomed corpus ${crypto.randomUUID()}`;
    const { init } = await upload(a, c, text);
    expect((await a.api("DELETE", `/v1/corpus/${c}`)).status).toBe(200);
    expect((await a.api("GET", `/v1/doc/${init.document.id}`)).status).toBe(404);
    expect(sql(k, "SELECT op, amount FROM usage_events WHERE metric = 'storage' AND corpus_id = ? ORDER BY id", c)).toEqual([
      { op: "created", amount: text.length },
      { op: "removed", amount: text.length },
    ]);
  });

  test("another organization: 404 on every document endpoint, and the document is unchanged", async () => {
    const { init } = await upload(a, corpusId, `private ${crypto.randomUUID()}`);
    const id = init.document.id;
    const before = (await a.api("GET", `/v1/doc/${id}`)).body;
    const paths: [string, string, unknown?][] = [
      ["GET", ""], ["GET", "/status"], ["PATCH", "", { filename: "stolen" }], ["POST", "/commit"], ["PUT", "/init"],
      ["GET", "/summary"], ["GET", "/download-url"], ["GET", "/preview-urls?pages=0"], ["DELETE", ""],
    ];
    for (const [m, p, body] of paths) {
      const r = await b.api(m, `/v1/doc/${id}${p}`, body);
      expect({ m, p, status: r.status }).toEqual({ m, p, status: 404 });
    }
    for (const p of ["download-url", "preview-urls?pages=0"]) expect((await b.api("GET", `/v1/post/attachment/${id}/${p}`)).status).toBe(404);
    const after = (await a.api("GET", `/v1/doc/${id}`)).body;
    expect(after.filename).toBe(before.filename);
    expect(after.id).toBe(id);
  });
});
