// JSON.parse reads 1e400 as Infinity and JSON.stringify writes that back as null: metadata holding
// such a number was stored as null with a 200, a value the client never sent and that no filter
// for 1e400 finds. It is refused now, naming where the number sits.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { seedDocument } from "../chunks/helpers.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
let chunkId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "c", metadata: { keep: 1 } })).body.id;
  chunkId = seedDocument(k, org.orgId, corpusId, [{ pages: [1], metadata: { kind: "chunk" } }]).chunkIds[0]!;
});
afterAll(() => k?.stop());

// Raw text: JSON.stringify cannot write a number beyond the double range.
const raw = (fields: string) => `{${fields}}`;

test("a metadata number beyond JSON's range → 400 naming metadata and the place, at every write; nothing stored", async () => {
  const writes: [string, string, string, string][] = [
    ["POST", "/v1/corpus/", raw(`"name":"n","metadata":{"a":1e400}`), "a"],
    ["PATCH", `/v1/corpus/${corpusId}`, raw(`"metadata":{"x":{"y":[1,-1e999]}}`), "x.y[1]"],
    ["PUT", `/v1/corpus/${corpusId}`, raw(`"metadata":{"a":1e400}`), "a"],
    ["PATCH", `/v1/chunk/${chunkId}`, raw(`"metadata":{"kind":"chunk","score":1e309}`), "score"],
    ["POST", "/v1/session/", raw(`"corpusIds":["${corpusId}"],"metadata":{"a":1e400}`), "a"],
    ["POST", "/v1/doc/init", raw(`"corpusId":"${corpusId}","filename":"a.txt","contentType":"text/plain","metadata":{"a":1e400}`), "a"],
  ];
  for (const [method, path, body, at] of writes) {
    const r = await org.api(method, path, body);
    expect({ path, status: r.status, message: r.body.message }).toEqual({
      path,
      status: 400,
      message: `Invalid body field 'metadata': must hold numbers a JSON number can represent (the one at ${at} is beyond ±1.8e308)`,
    });
  }
  const corpora = await org.api("GET", "/v1/corpus/");
  expect(corpora.body.items.map((c: { metadata: unknown }) => c.metadata)).toEqual([{ keep: 1 }]);
  expect((await org.api("GET", `/v1/chunk/${chunkId}`)).body.metadata).toEqual({ kind: "chunk" });
  expect((await org.api("GET", "/v1/session/")).body.total).toBe(0);
  expect((await org.api("GET", `/v1/doc/?corpusId=${corpusId}`)).body.total).toBe(1); // the seeded one only
});

test("the largest and smallest doubles are stored as sent", async () => {
  const r = await org.api("PATCH", `/v1/corpus/${corpusId}`, raw(`"metadata":{"max":1.7976931348623157e308,"min":-5e-324,"zero":-0}`));
  expect(r.status).toBe(200);
  expect((await org.api("GET", `/v1/corpus/${corpusId}`)).body.metadata).toEqual({ max: Number.MAX_VALUE, min: -5e-324, zero: 0 });
});

test("a document's chunk object is not judged by the API (spec): 1e400 there is still accepted at init", async () => {
  const r = await org.api("POST", "/v1/doc/init", raw(`"corpusId":"${corpusId}","filename":"b.txt","contentType":"text/plain","chunk":{"max_characters":1e400}`));
  expect(r.status).toBe(200);
});
