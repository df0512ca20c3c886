import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
// The real upload flow (init → PUT → commit → READY) and a page-per-chunk PDF, shared with the posts tests.
import { ask, corpus, ingest, PER_PAGE, session } from "../posts/helpers.ts";
import { makePdf } from "../posts/pdf.ts";
import { ids } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let cid: string;
let sid: string;
let docId: string;
let chunks: any[];

const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const attachments = async (postId: string) => (await org.api("GET", `/v1/post/attachment/${postId}`)).body as { docId: string; pages: number[] }[];
const cited = async (postId: string) => (await attachments(postId)).flatMap((a) => (a.docId === docId ? a.pages : []));

beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  cid = await corpus(org);
  sid = await session(org, [cid]);
  const pdf = await makePdf([
    ["The glacier probe Osprey measures ice thickness with radar."],
    ["Bread dough rises best in a warm kitchen."],
    ["The glacier probe Osprey records meltwater temperature."],
  ]);
  docId = await ingest(k, org, cid, "osprey.pdf", pdf, "application/pdf", PER_PAGE);
  chunks = (await org.api("GET", `/v1/chunk/q?documentId=${docId}&body=true`)).body.items;
  // A real ingestion: on a loaded 2-core machine it outlasts the default 5 s hook timeout.
}, 60_000);
afterAll(() => k?.stop());

const onPage = (p: number) => chunks.find((c) => c.metadata.kind === "chunk" && c.pages.includes(p))!;

describe("chunks of an ingested document", () => {
  test("summary first (empty span), then one chunk per page in reading order; hash is the MD5 of the text", async () => {
    expect(chunks[0].pages).toEqual([]);
    expect(chunks[0].metadata).toEqual({ kind: "summary" });
    expect(chunks.slice(1).map((c) => c.pages)).toEqual([[1], [2], [3]]);
    for (const c of chunks) {
      expect(c).toMatchObject({ documentId: docId, corpusId: cid });
      expect(c.hash).toBe(md5(c.body));
    }
    expect(ids((await org.api("GET", "/v1/chunk/")).body.items)).toEqual(ids(chunks));
    expect(ids((await org.api("GET", `/v1/chunk/q?page=2&key=kind&value=chunk`)).body.items)).toEqual([onPage(2).id]);
    expect(ids((await org.api("GET", `/v1/chunk/q?hash=${onPage(3).hash}`)).body.items)).toEqual([onPage(3).id]);
  });

  test("a deleted chunk disappears from retrieval and from an older answer's attachments; the document stays", async () => {
    const target = onPage(3);
    const before = await ask(org, sid, "What does the glacier probe Osprey record about meltwater temperature?");
    expect(await cited(before.body.answer.id)).toContain(3);
    const del = await org.api("DELETE", `/v1/chunk/${target.id}`);
    expect(del.status).toBe(200);
    expect(await cited(before.body.answer.id)).not.toContain(3);
    expect((await org.api("GET", `/v1/post/${before.body.answer.id}`)).body.body).toBe(before.body.answer.body);
    const after = await ask(org, sid, "What does the glacier probe Osprey record about meltwater temperature?");
    expect(await cited(after.body.answer.id)).not.toContain(3);
    expect((await org.api("GET", `/v1/doc/${docId}`)).body.status).toBe("READY");
    expect((await org.api("GET", `/v1/chunk/${target.id}`)).status).toBe(404);
  });

  test("a patched chunk is still retrieved for its old text and handed to the model with its new text", async () => {
    // Page 3 is gone (previous test); the summary chunk also quotes page 1, so it goes too:
    // the patched chunk is then the only one whose indexed (old) text mentions radar.
    expect((await org.api("DELETE", `/v1/chunk/${chunks[0].id}`)).status).toBe(200);
    const target = onPage(1);
    const r = await org.api("PATCH", `/v1/chunk/${target.id}`, { body: "The glacier probe Osprey measures ice thickness with lasers." });
    expect(r.status).toBe(200);
    expect(r.body.hash).toBe(target.hash);
    const a = await ask(org, sid, "How does the glacier probe Osprey measure ice thickness with radar?");
    expect(a.status).toBe(200);
    expect(await cited(a.body.answer.id)).toEqual([1]);
    expect(a.body.answer.body).toContain("lasers");
    expect(a.body.answer.body).not.toContain("radar");
  });

  test("deleting the document makes its chunks answer 403 on get and vanish from listings", async () => {
    expect((await org.api("DELETE", `/v1/doc/${docId}`)).status).toBe(200);
    expect((await org.api("GET", `/v1/chunk/${onPage(2).id}`)).status).toBe(403);
    expect((await org.api("GET", "/v1/chunk/")).body.total).toBe(0);
    expect((await org.api("GET", `/v1/chunk/q?documentId=${docId}`)).body).toEqual({ pageIndex: 0, pageSize: 25, total: 0, items: [] });
  });
});
