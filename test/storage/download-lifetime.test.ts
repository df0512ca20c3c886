// A download URL is a credential the API handed out for one document generation: it stops
// working when the document is deleted or given new content (the original keeps its key, so an
// old URL used to serve the new bytes, and a deleted document's bytes stayed downloadable). What
// it serves is a download: never sniffed, never run as a page on the API's origin.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, put, upload } from "../documents/helpers.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = await corpus(org);
});
afterAll(() => k?.stop());

const settled = (id: string) =>
  waitFor(async () => ["READY", "FAILED"].includes((await org.api("GET", `/v1/doc/${id}/status`)).body.status), "ingestion to end", 60_000);
const downloadUrl = async (id: string) => (await org.api("GET", `/v1/doc/${id}/download-url`)).body.url as string;

test("an original is served as an attachment under its filename, unsniffed and sandboxed", async () => {
  const { init } = await upload(org, corpusId, "<html><script>alert(document.domain)</script></html>", { contentType: "text/html", filename: "Ré(sumé) \"v2\".html" });
  const r = await fetch(await downloadUrl(init.document.id));
  expect(r.status).toBe(200);
  expect(await r.text()).toContain("<script>");
  expect({
    type: r.headers.get("content-type"), disposition: r.headers.get("content-disposition"),
    nosniff: r.headers.get("x-content-type-options"), csp: r.headers.get("content-security-policy"),
  }).toEqual({
    type: "text/html", disposition: `attachment; filename="R_(sum_) _v2_.html"; filename*=UTF-8''R%C3%A9%28sum%C3%A9%29%20%22v2%22.html`,
    nosniff: "nosniff", csp: "sandbox; default-src 'none'",
  });
});

test("a URL issued before the document got new content answers 404; the new URL serves the new bytes", async () => {
  const { init } = await upload(org, corpusId, "first content of the replaced document");
  const id = init.document.id;
  await settled(id);
  const old = await downloadUrl(id);
  expect(await (await fetch(old)).text()).toBe("first content of the replaced document");

  const again = await org.api("PUT", `/v1/doc/${id}/init`);
  expect(again.status).toBe(200);
  expect((await fetch(old)).status).toBe(404); // already at the new generation, before any upload
  expect((await put(again.body.uploadUrl, "second content of the replaced document")).status).toBe(200);
  const stale = await fetch(old);
  expect(stale.status).toBe(404);
  expect(await stale.text()).toContain("<Code>NoSuchKey</Code>");
  expect(await (await fetch(await downloadUrl(id))).text()).toBe("second content of the replaced document");
});

test("a URL of a deleted document, or of a document in a deleted corpus, answers 404", async () => {
  const { init: a } = await upload(org, corpusId, "deleted document body");
  const urlA = await downloadUrl(a.document.id);
  expect((await org.api("DELETE", `/v1/doc/${a.document.id}`)).status).toBeLessThan(300);
  expect((await fetch(urlA)).status).toBe(404);

  const other = await corpus(org, "doomed");
  const { init: b } = await upload(org, other, "document of a deleted corpus");
  const urlB = await downloadUrl(b.document.id);
  expect((await fetch(urlB)).status).toBe(200);
  expect((await org.api("DELETE", `/v1/corpus/${other}`)).status).toBeLessThan(300);
  expect((await fetch(urlB)).status).toBe(404);
});

test("the generation of a download URL is part of its signature: changed, removed or malformed → 403", async () => {
  const { init } = await upload(org, corpusId, "signed generation body");
  const url = new URL(await downloadUrl(init.document.id));
  const variant = (edit: (q: URLSearchParams) => void) => {
    const u = new URL(url);
    edit(u.searchParams);
    return fetch(u).then(async (r) => ({ status: r.status, code: /<Code>([^<]+)<\/Code>/.exec(await r.text())?.[1] }));
  };
  expect(await variant((q) => q.set("X-Kbqa-Generation", String(Number(q.get("X-Kbqa-Generation")) + 1)))).toEqual({ status: 403, code: "SignatureDoesNotMatch" });
  expect(await variant((q) => q.delete("X-Kbqa-Generation"))).toEqual({ status: 403, code: "SignatureDoesNotMatch" });
  expect(await variant((q) => q.set("X-Kbqa-Generation", "1e3"))).toEqual({ status: 403, code: "AccessDenied" });
  expect((await fetch(url)).status).toBe(200);
});

test("a download URL re-cut to drop its generation (moved into the nonce, signature kept) is refused", async () => {
  // The signed string once joined its fields with newlines and left the generation out when
  // absent, so "nonce empty, generation N" and "no generation, nonce '\ngN'" signed the same.
  const { init } = await upload(org, corpusId, "content of a document about to be replaced");
  const id = init.document.id;
  await settled(id);
  const url = new URL(await downloadUrl(id));
  const generation = url.searchParams.get("X-Kbqa-Generation")!;
  expect(generation).toMatch(/^\d+$/);
  const bent = new URL(url);
  bent.searchParams.delete("X-Kbqa-Generation");
  bent.searchParams.set("X-Kbqa-Nonce", `\ng${generation}`);
  const r = await fetch(bent);
  expect(r.status).toBe(403);
  expect(await r.text()).toContain("<Code>");
  expect((await org.api("PUT", `/v1/doc/${id}/init`)).status).toBe(200);
  expect((await fetch(bent)).status).toBe(403);
  expect((await fetch(url)).status).toBe(404);
});
