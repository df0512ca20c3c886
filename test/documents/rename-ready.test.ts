// "Renaming moves nothing and re-ingests nothing", on a document that has content: crud.test
// renames one still awaiting its upload, where nothing could have been moved or re-ingested.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { vectorCount } from "../ingest/seed.ts";
import { corpus, sql } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = await corpus(org);
}, 60_000);
afterAll(() => k.stop());

test("a READY document renamed (with new metadata, tags and chunk): same object, generation, chunks and vectors, no job; its download URL keeps working", async () => {
  const text = `# Pumps\n\n${"The pump inspection routine runs every Monday. ".repeat(30)}`;
  const id = await ingestDocument(k, org, corpusId, "old name.md", text);
  const state = () => ({
    row: sql(k, "SELECT status, generation, blob_key, size FROM documents WHERE id = ?", id),
    jobs: sql(k, "SELECT count(*) AS n FROM jobs WHERE document_id = ?", id),
    chunks: sql(k, "SELECT id FROM chunks WHERE document_id = ? AND deleted_at IS NULL ORDER BY id", id),
  });
  const before = state();
  const vectorsBefore = await vectorCount(k.dataDir, org.orgId, id);
  expect(vectorsBefore).toBeGreaterThan(0);
  const url = (await org.api("GET", `/v1/doc/${id}/download-url`)).body.url as string;

  const p = await org.api("PATCH", `/v1/doc/${id}`, { filename: "../new/name.md", metadata: { x: 1 }, tags: ["t"], chunk: { max_characters: 300 } });
  expect([p.status, p.body.status, p.body.filename]).toEqual([200, "READY", "../new/name.md"]);
  expect(state()).toEqual(before);
  expect(await vectorCount(k.dataDir, org.orgId, id)).toBe(vectorsBefore);
  expect(readFileSync(join(k.dataDir, "blobs", "orgs", org.orgId, "docs", id, "original"), "utf8")).toBe(text);
  expect(existsSync(join(k.dataDir, "blobs", "orgs", org.orgId, "new"))).toBe(false);

  const old = await fetch(url);
  expect(old.status).toBe(200);
  expect(await old.text()).toBe(text);
  // A URL issued after the rename names the new file.
  const fresh = await fetch((await org.api("GET", `/v1/doc/${id}/download-url`)).body.url);
  expect(fresh.headers.get("content-disposition")).toContain("filename*=UTF-8''..%2Fnew%2Fname.md");
}, 120_000);
