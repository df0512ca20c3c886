import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, PER_PAGE, session } from "./helpers.ts";
import { makePdf } from "./pdf.ts";
import { chunkRows, deleteChunk, patchChunkBody, sql } from "./sql.ts";

let k: Kbqa;
let org: Org;
let cid: string;
let sid: string;
let docId: string;
let otherDoc: string;
const PDF = "application/pdf";

beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  cid = await corpus(org);
  sid = await session(org, [cid]);
  const pdf = await makePdf([
    ["The orbital lander Kestrel carries a drill."],
    ["Pasta must be cooked in salted water for nine minutes."],
    ["The orbital lander Kestrel carries a camera."],
  ]);
  docId = await ingest(k, org, cid, "kestrel.pdf", pdf, PDF, { ...PER_PAGE, metadata: { team: "space" } });
  otherDoc = await ingest(k, org, cid, "herons.pdf", await makePdf([["Grey herons nest in tall trees near rivers."]]), PDF, PER_PAGE);
});
afterAll(() => k?.stop());

const attachments = async (postId: string) => {
  const r = await org.api("GET", `/v1/post/attachment/${postId}`);
  expect(r.status).toBe(200);
  return r.body as { docId: string; summary: string | null; pages: number[]; metadata: Record<string, unknown> }[];
};
const pageChunk = (page: number) => chunkRows(k, docId).find((c) => c.kind === "chunk" && c.pages.includes(page))!;

describe("attachments", () => {
  test("two cited chunks of one document: attachment 2, one attachment listing both pages", async () => {
    expect(chunkRows(k, docId).filter((c) => c.kind === "chunk").map((c) => c.pages)).toEqual([[1], [2], [3]]);
    const r = await ask(org, sid, "What does the orbital lander Kestrel carry?");
    expect(r.status).toBe(200);
    expect(r.body.answer.body).toContain("drill");
    expect(r.body.answer.body).toContain("camera");
    const got = await attachments(r.body.answer.id);
    const summary = (await org.api("GET", `/v1/doc/${docId}/summary`));
    expect(got).toEqual([{ docId, summary: expect.any(String), pages: [1, 3], metadata: { team: "space" } }]);
    expect(summary.status).toBe(200);
    expect(got[0]!.summary).toBe(typeof summary.body === "string" ? summary.body : got[0]!.summary);
    // The count is of chunks; the list is of documents. The summary chunk may be cited as well.
    expect(r.body.answer.attachment).toBeGreaterThanOrEqual(2);
    expect(r.body.answer.attachment).toBe((await org.api("GET", `/v1/post/${r.body.answer.id}`)).body.attachment);
    expect(await attachments(r.body.query.id)).toEqual([]);
  });

  test("a deleted chunk loses its citation; the answer keeps its text", async () => {
    const r = await ask(org, sid, "What does the orbital lander Kestrel carry?");
    const before = r.body.answer.attachment;
    const deleted = pageChunk(3).id;
    const how = await deleteChunk(k, org, deleted);
    if (how === "sql") console.warn("chunk API absent: the chunk was soft-deleted in SQLite");
    const after = (await org.api("GET", `/v1/post/${r.body.answer.id}`)).body;
    expect(after.body).toBe(r.body.answer.body);
    expect(after.attachment).toBe(before - 1);
    expect((await attachments(r.body.answer.id)).find((a) => a.docId === docId)!.pages).toEqual([1]);
    // And it is never handed to the model again (the summary chunk still quotes its sentence,
    // so the check is on the chunks behind the new answer).
    const again = await ask(org, sid, "What does the orbital lander Kestrel carry?");
    const behind = sql<{ chunk_id: string }>(k, "SELECT chunk_id FROM post_citations WHERE post_id = ?", again.body.answer.id).map((c) => c.chunk_id);
    expect(behind).toContain(pageChunk(1).id);
    expect(behind).not.toContain(deleted);
  });

  test("a patched chunk is handed to the model with its new text", async () => {
    const how = await patchChunkBody(k, org, pageChunk(1).id, "The orbital lander Kestrel carries a spectrometer.");
    if (how === "sql") console.warn("chunk API absent: the chunk body was patched in SQLite");
    const r = await ask(org, sid, "What does the orbital lander Kestrel carry?");
    expect(r.body.answer.body).toContain("spectrometer");
    expect(r.body.answer.body).not.toContain("drill [");
  });

  test("a replaced document loses its attachments", async () => {
    const r = await ask(org, sid, "Where do grey herons nest?");
    expect((await attachments(r.body.answer.id)).map((a) => a.docId)).toEqual([otherDoc]);
    const re = await org.api("PUT", `/v1/doc/${otherDoc}/init`);
    expect(re.status).toBe(200);
    expect(await attachments(r.body.answer.id)).toEqual([]);
    expect((await org.api("GET", `/v1/post/${r.body.answer.id}`)).body.attachment).toBe(0);
  });

  test("a deleted document loses its attachments", async () => {
    const r = await ask(org, sid, "What does the orbital lander Kestrel carry?");
    expect((await attachments(r.body.answer.id)).length).toBe(1);
    expect((await org.api("DELETE", `/v1/doc/${docId}`)).status).toBe(200);
    expect(await attachments(r.body.answer.id)).toEqual([]);
    expect((await org.api("GET", `/v1/post/${r.body.answer.id}`)).body.attachment).toBe(0);
  });

  test("the listing route and the documents' alias routes live side by side", async () => {
    const r = await org.api("GET", `/v1/post/attachment/${crypto.randomUUID()}`);
    expect(r.status).toBe(404);
    expect(r.body.message).toBe("Post not found");
    expect((await org.api("GET", "/v1/post/attachment/not-a-uuid")).status).toBe(400);
    const alias = await org.api("GET", `/v1/post/attachment/${otherDoc}/preview-urls?pages=0`);
    expect(alias.status).not.toBe(404);
  });
});
