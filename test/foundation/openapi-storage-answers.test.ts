// The presigned storage URLs are operations of /openapi.json too: their answers were not
// documented at all. A client reading the document learns the 200 of an upload and of a
// download, and that refusals are S3-style XML, or the error object when it asks for JSON.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { breaks } from "../helpers/schema-breaks.ts";

let k: Kbqa;
let a: Org;
let doc: any;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  doc = (await k.request("GET", "/openapi.json")).body;
});
afterAll(() => k?.stop());

/** The documented answer for this status of this storage operation: its entry and the content types it lists. */
const documented = (method: string, status: number) => {
  const responses = doc.paths["/storage/*"][method].responses ?? {};
  const entry = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
  return entry && { entry, types: Object.keys(entry.content ?? {}) };
};

test("uploads and downloads answer as documented: 200, and refusals as XML or, asked for, the error object", async () => {
  const corpusId = (await a.api("POST", "/v1/corpus/", { name: "s" })).body.id;
  const init = (await a.api("POST", "/v1/doc/init", { corpusId, filename: "a.md", contentType: "text/markdown" })).body;
  const put = (headers: Record<string, string> = {}) => fetch(init.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown", ...headers }, body: "# A\n\ntext\n" });
  const first = await put();
  expect([first.status, documented("put", 200)?.entry.description?.length > 0]).toEqual([200, true]);
  const again = await put();
  expect([again.status, again.headers.get("content-type"), documented("put", again.status)?.types]).toEqual([412, "application/xml", ["application/xml", "application/json"]]);
  const asJson = await put({ accept: "application/json" });
  const refusal = await asJson.json();
  const schema = documented("put", asJson.status)!.entry.content["application/json"].schema;
  expect(breaks(refusal, schema, "", doc.components.schemas)).toEqual([]);

  const id = await ingestDocument(k, a, corpusId, "b.md", "# B\n\nbody\n", "text/markdown", {}, 60_000);
  const url = (await a.api("GET", `/v1/doc/${id}/download-url`)).body.url;
  const got = await fetch(url);
  expect([got.status, await got.text(), documented("get", 200)?.types]).toEqual([200, "# B\n\nbody\n", ["application/octet-stream"]]);
  const gone = await fetch(url.replace(/X-Kbqa-Signature=[^&]+/, "X-Kbqa-Signature=0"));
  expect([gone.status >= 400 && gone.status < 500, documented("get", gone.status)?.types]).toEqual([true, ["application/xml", "application/json"]]);
});
