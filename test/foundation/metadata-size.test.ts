// Metadata comes back with every item of a listing: a 15 MB object was accepted (only the 16 MiB
// body limit applied), and each page of corpora then weighed hundreds of megabytes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { MAX_METADATA_CHARS } from "../../src/http/paging.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
});
afterAll(() => k?.stop());

/** An object whose JSON text is exactly `chars` characters long. */
const sized = (chars: number) => ({ s: "x".repeat(chars - '{"s":""}'.length) });

test("metadata over the limit → 400 naming it, at every place a client writes metadata; nothing is stored", async () => {
  const over = sized(MAX_METADATA_CHARS + 1);
  const message = `Invalid body field 'metadata': must be at most ${MAX_METADATA_CHARS} characters as JSON`;
  const writes: [string, string, Record<string, unknown>][] = [
    ["POST", "/v1/corpus/", { name: "big", metadata: over }],
    ["PATCH", `/v1/corpus/${corpusId}`, { metadata: over }],
    ["POST", "/v1/doc/init", { corpusId, filename: "a.txt", contentType: "text/plain", metadata: over }],
    ["POST", "/v1/session/", { corpusIds: [corpusId], metadata: over }],
  ];
  for (const [method, path, body] of writes) {
    const r = await org.api(method, path, body);
    expect({ path, status: r.status, message: r.body.message }).toEqual({ path, status: 400, message });
  }
  const corpora = await org.api("GET", "/v1/corpus/");
  expect({ total: corpora.body.total, metadata: corpora.body.items[0].metadata }).toEqual({ total: 1, metadata: {} });
  expect((await org.api("GET", `/v1/doc/?corpusId=${corpusId}`)).body.total).toBe(0);
});

test("metadata of exactly the limit is stored whole", async () => {
  const r = await org.api("PATCH", `/v1/corpus/${corpusId}`, { metadata: sized(MAX_METADATA_CHARS) });
  expect(r.status).toBe(200);
  expect(JSON.stringify((await org.api("GET", `/v1/corpus/${corpusId}`)).body.metadata).length).toBe(MAX_METADATA_CHARS);
});
