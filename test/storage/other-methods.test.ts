import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk } from "../documents/helpers.ts";

// Presigned URLs grant GET or PUT. Other methods got the API's JSON 404 ("No route"), unlike
// every other storage answer; S3 answers them 405 MethodNotAllowed in its XML error.
let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
});
afterAll(() => k?.stop());

test("POST, DELETE and PATCH on a presigned URL → 405 MethodNotAllowed (XML), nothing changed", async () => {
  const init = await initOk(a, { corpusId: await corpus(a), filename: "a.txt", contentType: "text/plain" });
  for (const method of ["POST", "DELETE", "PATCH"]) {
    const r = await fetch(init.uploadUrl, { method, body: method === "DELETE" ? undefined : "x", headers: { "content-type": "text/plain" } });
    const text = await r.text();
    // Allow is required on a 405 (RFC 9110) and S3 sends it: a client learns GET/PUT from the header.
    expect({ method, status: r.status, type: r.headers.get("content-type"), allow: r.headers.get("allow"), code: /<Code>(\w+)<\/Code>/.exec(text)?.[1] }).toEqual({
      method, status: 405, type: "application/xml", allow: "GET, HEAD, PUT", code: "MethodNotAllowed",
    });
  }
  // The URL still grants its one upload.
  const put = await fetch(init.uploadUrl, { method: "PUT", body: "hello", headers: { "content-type": "text/plain" } });
  expect(put.status).toBe(200);
});
