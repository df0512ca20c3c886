import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";

// A client that comes back after its upload URL expired could neither upload (403) nor get a new
// URL (PUT init answers 409 from AWAITING_UPLOAD, as the spec says): the document stayed
// AWAITING_UPLOAD for good. A commit then moves it to FAILED, from which PUT init hands out one.
let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--upload-url-ttl", "1"] });
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
});
afterAll(() => k?.stop());

const init = async () => (await org.api("POST", "/v1/doc/init", { corpusId, filename: "late.txt", contentType: "text/plain" })).body;

test("a commit after the URL expired unused fails the document, which PUT init then revives", async () => {
  const { document, uploadUrl, expiresAt } = await init();
  const id = document.id as string;
  const early = await waitFor(async () => {
    if (Date.now() <= Date.parse(expiresAt)) return null;
    return org.api("PUT", `/v1/doc/${id}/init`, {});
  }, "the upload URL to expire", 10_000);
  // Still the spec's 409, but naming the way out.
  expect({ status: early.status, message: early.body.message }).toEqual({
    status: 409,
    message: `Document is AWAITING_UPLOAD and its upload URL expired unused (${expiresAt}); only a READY or FAILED document can get new content: POST /v1/doc/${id}/commit marks it FAILED, then PUT /v1/doc/${id}/init gives a new URL`,
  });
  const commit = await org.api("POST", `/v1/doc/${id}/commit`);
  expect(commit.status).toBe(400);
  expect(commit.body.message).toBe(`Nothing was uploaded before the upload URL expired (${expiresAt}); PUT /v1/doc/${id}/init gives a new one`);
  expect((await fetch(uploadUrl, { method: "PUT", headers: { "content-type": "text/plain" }, body: "too late" })).status).toBe(403);
  const failed = (await org.api("GET", `/v1/doc/${id}`)).body;
  expect({ status: failed.status, statusMsg: failed.statusMsg }).toEqual({ status: "FAILED", statusMsg: commit.body.message });

  const again = await org.api("PUT", `/v1/doc/${id}/init`, {});
  expect(again.status).toBe(200);
  const put = await fetch(again.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/plain" }, body: "On time this time." });
  expect(put.status).toBe(200);
  expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
  await waitFor(async () => (await org.api("GET", `/v1/doc/${id}/status`)).body.status === "READY", "READY");
});

test("while the URL still works, a commit with nothing uploaded changes nothing, and PUT init gives the plain 409", async () => {
  await using slow = await startKbqa();
  const o = await slow.org();
  const c = (await o.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const { document } = (await o.api("POST", "/v1/doc/init", { corpusId: c, filename: "x.txt", contentType: "text/plain" })).body;
  const r = await o.api("POST", `/v1/doc/${document.id}/commit`);
  expect({ status: r.status, message: r.body.message }).toEqual({ status: 400, message: "Nothing was uploaded for this document: PUT the file to uploadUrl first" });
  expect((await o.api("GET", `/v1/doc/${document.id}`)).body.status).toBe("AWAITING_UPLOAD");
  const replace = await o.api("PUT", `/v1/doc/${document.id}/init`, {});
  expect({ status: replace.status, message: replace.body.message }).toEqual({
    status: 409,
    message: "Document is AWAITING_UPLOAD; only a READY or FAILED document can get new content",
  });
});
