// The spec's 403 for "single chunk of a deleted document" is about the document: it holds for
// every method on the chunk, and also for a chunk that was itself deleted before its document
// (otherwise the answer would depend on the order of two deletions the client may not know).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { newCorpus, seedDocument } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;

beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = await newCorpus(org);
}, 60_000);
afterAll(() => k?.stop());

const statuses = async (chunkId: string) => [
  (await org.api("GET", `/v1/chunk/${chunkId}`)).status,
  (await org.api("PATCH", `/v1/chunk/${chunkId}`, { body: "changed" })).status,
  (await org.api("DELETE", `/v1/chunk/${chunkId}`)).status,
];

test("GET, PATCH and DELETE of a chunk of a deleted document all answer 403", async () => {
  const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1], body: "kept" }]);
  expect((await org.api("DELETE", `/v1/doc/${d.documentId}`)).status).toBe(200);
  expect(await statuses(d.chunkIds[0]!)).toEqual([403, 403, 403]);
});

test("a chunk deleted before its document answers 403 once the document is deleted, 404 before", async () => {
  const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1] }, { pages: [2] }]);
  expect((await org.api("DELETE", `/v1/chunk/${d.chunkIds[0]}`)).status).toBe(200);
  expect(await statuses(d.chunkIds[0]!)).toEqual([404, 404, 404]);
  expect((await org.api("DELETE", `/v1/doc/${d.documentId}`)).status).toBe(200);
  expect(await statuses(d.chunkIds[0]!)).toEqual([403, 403, 403]);
  expect(await statuses(d.chunkIds[1]!)).toEqual([403, 403, 403]);
});

test("another organization asking for those chunks gets 404, as for an unknown id", async () => {
  const d = seedDocument(k, org.orgId, corpusId, [{ pages: [1] }]);
  expect((await org.api("DELETE", `/v1/doc/${d.documentId}`)).status).toBe(200);
  const other = await k.org();
  expect((await other.api("GET", `/v1/chunk/${d.chunkIds[0]}`)).status).toBe(404);
  expect((await other.api("PATCH", `/v1/chunk/${d.chunkIds[0]}`, { body: "x" })).status).toBe(404);
  expect((await other.api("DELETE", `/v1/chunk/${d.chunkIds[0]}`)).status).toBe(404);
});
