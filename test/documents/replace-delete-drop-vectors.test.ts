// New content (PUT /v1/doc/{id}/init) drops the document's embeddings, and so does a document
// DELETE; only the corpus delete had a test of its vectors. Retrieval filters through SQLite, so
// answers alone would not show rows left behind in LanceDB: the index itself is counted.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { vectorCount } from "../ingest/seed.ts";
import { corpus } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = await corpus(org);
}, 60_000);
afterAll(() => k.stop());

const text = (n: number) => `# Note ${n}\n\n` + `Sentence ${n} about embeddings that must follow their document's content. `.repeat(40);
const vectors = (id: string, generation?: number) => vectorCount(k.dataDir, org.orgId, id, generation);

test("PUT init drops the previous generation's vectors; committing without an upload embeds the same content again", async () => {
  const id = await ingestDocument(k, org, corpusId, "replaced.md", text(1));
  const kept = await ingestDocument(k, org, corpusId, "kept.md", text(2));
  const before = await vectors(id, 0);
  expect(before).toBeGreaterThan(0);
  expect((await org.api("PUT", `/v1/doc/${id}/init`)).status).toBe(200);
  await waitFor(async () => (await vectors(id)) === 0, "the replaced document's vectors to go", 20_000, 100);
  expect(await vectors(kept)).toBeGreaterThan(0);
  expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
  await waitFor(async () => (await org.api("GET", `/v1/doc/${id}/status`)).body.status === "READY", "re-ingestion", 60_000);
  expect(await vectors(id, 1)).toBe(before);
  expect(await vectors(id, 0)).toBe(0);
}, 120_000);

test("DELETE /v1/doc/{id} drops the document's vectors and no other's", async () => {
  const id = await ingestDocument(k, org, corpusId, "deleted.md", text(3));
  const kept = await ingestDocument(k, org, corpusId, "stays.md", text(4));
  expect(await vectors(id)).toBeGreaterThan(0);
  expect((await org.api("DELETE", `/v1/doc/${id}`)).status).toBe(200);
  await waitFor(async () => (await vectors(id)) === 0, "the deleted document's vectors to go", 20_000, 100);
  expect(await vectors(kept)).toBeGreaterThan(0);
}, 120_000);
