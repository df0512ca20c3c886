import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put } from "../documents/helpers.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
}, 60_000); // starting a server and registering a key can pass 5 s on a loaded 2-core machine
afterAll(() => k.stop());

const objectPath = (docId: string) => join(k.dataDir, "blobs", "orgs", a.orgId, "docs", docId, "original");
const xmlCode = (text: string) => /<Code>([^<]+)<\/Code>/.exec(text)?.[1];

/** Rewrites one query parameter (or the path) of a presigned URL. */
function tamper(url: string, edit: (u: URL) => void): string {
  const u = new URL(url);
  edit(u);
  return u.toString();
}

describe("presigned PUT: every tampering is refused with 403 and writes nothing", () => {
  test("signature, key, expiry, bound content type, nonce, missing parameters", async () => {
    const i = await initOk(a, { corpusId });
    const other = await initOk(a, { corpusId });
    const sig = new URL(i.uploadUrl).searchParams.get("X-Kbqa-Signature")!;
    const flip = (s: string) => (s[0] === "a" ? "b" : "a") + s.slice(1);
    const cases: [string, string, string][] = [
      ["tampered signature", tamper(i.uploadUrl, (u) => u.searchParams.set("X-Kbqa-Signature", flip(sig))), "SignatureDoesNotMatch"],
      ["signature not hex", tamper(i.uploadUrl, (u) => u.searchParams.set("X-Kbqa-Signature", "zz")), "SignatureDoesNotMatch"],
      ["missing signature", tamper(i.uploadUrl, (u) => u.searchParams.delete("X-Kbqa-Signature")), "AccessDenied"],
      ["missing expiry", tamper(i.uploadUrl, (u) => u.searchParams.delete("X-Kbqa-Expires")), "AccessDenied"],
      ["missing content type", tamper(i.uploadUrl, (u) => u.searchParams.delete("X-Kbqa-Content-Type")), "AccessDenied"],
      ["later expiry", tamper(i.uploadUrl, (u) => u.searchParams.set("X-Kbqa-Expires", String(Number(u.searchParams.get("X-Kbqa-Expires")) + 3600))), "SignatureDoesNotMatch"],
      ["other bound type", tamper(i.uploadUrl, (u) => u.searchParams.set("X-Kbqa-Content-Type", "text/html")), "SignatureDoesNotMatch"],
      ["other nonce", tamper(i.uploadUrl, (u) => u.searchParams.set("X-Kbqa-Nonce", crypto.randomUUID())), "SignatureDoesNotMatch"],
      ["key of another document", tamper(i.uploadUrl, (u) => (u.pathname = new URL(other.uploadUrl).pathname)), "SignatureDoesNotMatch"],
      ["no query at all", i.uploadUrl.split("?")[0]!, "AccessDenied"],
    ];
    for (const [what, url, code] of cases) {
      const r = await put(url, "x", "text/plain");
      expect({ what, status: r.status, code: xmlCode(r.text), type: r.headers.get("content-type") }).toEqual({ what, status: 403, code, type: "application/xml" });
    }
    expect(existsSync(objectPath(i.document.id))).toBe(false);
    expect(existsSync(objectPath(other.document.id))).toBe(false);
    // The untouched URL still works: nothing above consumed it.
    expect((await put(i.uploadUrl, "fine", "text/plain")).status).toBe(200);
    expect(readFileSync(objectPath(i.document.id), "utf8")).toBe("fine");
  });

  test("the Content-Type header must equal the declared type exactly", async () => {
    const i = await initOk(a, { corpusId, contentType: "text/markdown" });
    for (const ct of ["text/plain", "text/markdown; charset=utf-8", "TEXT/MARKDOWN", null]) {
      const r = await put(i.uploadUrl, "# t", ct);
      expect({ ct, status: r.status, code: xmlCode(r.text) }).toEqual({ ct, status: 403, code: "SignatureDoesNotMatch" });
    }
    expect(existsSync(objectPath(i.document.id))).toBe(false);
    expect((await put(i.uploadUrl, "# t", "text/markdown")).status).toBe(200);
  });

  test("the method is signed: an upload URL does not download and a download URL does not upload", async () => {
    const i = await initOk(a, { corpusId });
    expect((await put(i.uploadUrl, "v1", "text/plain")).status).toBe(200);
    const get = await fetch(i.uploadUrl);
    expect([get.status, xmlCode(await get.text())]).toEqual([403, "SignatureDoesNotMatch"]);
    await a.api("POST", `/v1/doc/${i.document.id}/commit`);
    const d = await a.api("GET", `/v1/doc/${i.document.id}/download-url`);
    const up = await put(d.body.url, "overwrite", "text/plain");
    expect(up.status).toBe(403);
    expect(readFileSync(objectPath(i.document.id), "utf8")).toBe("v1");
  });

  test("errors are JSON with the same code when the client asks for JSON", async () => {
    const i = await initOk(a, { corpusId });
    const r = await put(tamper(i.uploadUrl, (u) => u.searchParams.set("X-Kbqa-Signature", "0".repeat(64))), "x", "text/plain", { accept: "application/json" });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text)).toEqual({
      timestamp: expect.any(String),
      status: 403,
      error: "Forbidden",
      message: expect.stringContaining("signature"),
      path: new URL(i.uploadUrl).pathname,
      code: "SignatureDoesNotMatch",
    });
  });

  test("the signing secret is generated once, 64 hex digits, mode 0600", () => {
    const p = join(k.dataDir, "storage.secret");
    expect(readFileSync(p, "utf8")).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(p).mode & 0o777).toBe(0o600);
  });
});

describe("expiry", () => {
  test("an upload URL past its lifetime answers 403 AccessDenied (--upload-url-ttl 1)", async () => {
    await using s = await startKbqa({ flags: ["--upload-url-ttl", "1"] });
    const o = await s.org();
    const c = await corpus(o);
    const i = await initOk(o, { corpusId: c });
    expect(Date.parse(i.expiresAt) - Date.now()).toBeLessThanOrEqual(2000);
    // Wait for the clock to pass expiresAt (a PUT before that would succeed and spend the URL).
    await waitFor(() => Date.now() > Date.parse(i.expiresAt), "expiresAt to pass", 5000, 50);
    const r = await put(i.uploadUrl, "late", "text/plain");
    expect(r.status).toBe(403);
    expect(xmlCode(r.text)).toBe("AccessDenied");
    expect(r.text).toContain("expired");
    expect(existsSync(join(s.dataDir, "blobs", "orgs", o.orgId, "docs", i.document.id, "original"))).toBe(false);
  }, 60_000); // a server of its own, and a wait of over a second
});
