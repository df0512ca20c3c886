import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { presignedPath } from "../../src/storage/sign.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put, sql } from "../documents/helpers.ts";
import { rawRequest } from "./raw.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
  // A file outside the blob root that a traversal would reach.
  writeFileSync(join(k.dataDir, "outside.txt"), "outside");
}, 60_000); // starting a server and registering a key can pass 5 s on a loaded 2-core machine
afterAll(() => k.stop());

/** Files of the data directory outside blobs/, to prove nothing was written there. */
const outsideFiles = () =>
  readdirSync(k.dataDir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && !join(d.parentPath, d.name).startsWith(join(k.dataDir, "blobs")) && !/kbqa\.sqlite|\.pem$/.test(d.name))
    .map((d) => join(d.parentPath, d.name))
    .sort();

/** Signs like the server does, with the secret read from the data directory: the defence must hold even for a validly signed evil key. */
/** A correctly signed query string for any key (the service's own signing, with the data directory's secret). */
function forge(method: "GET" | "PUT", key: string, contentType: string, nonce = "") {
  const secret = Buffer.from(readFileSync(join(k.dataDir, "storage.secret"), "utf8").trim(), "hex");
  const expires = Math.floor(Date.now() / 1000) + 600;
  return presignedPath(secret, { method, key, expires, contentType, ...(method === "PUT" ? { nonce } : { generation: 0 }) }).split("?")[1]!;
}

describe("path traversal never reaches a file outside the blob root", () => {
  test("traversal in the request path of a real upload URL: 403 or 404, nothing written, the URL still usable", async () => {
    const i = await initOk(a, { corpusId });
    const u = new URL(i.uploadUrl);
    const before = outsideFiles();
    const targets = [
      `/storage/../outside.txt${u.search}`,
      `/storage/${"../".repeat(8)}etc/passwd${u.search}`,
      `/storage/%2e%2e/%2e%2e/outside.txt${u.search}`,
      `/storage/%2E%2E%2F%2E%2E%2Foutside.txt${u.search}`,
      `/storage/..%2f..%2foutside.txt${u.search}`,
      `/storage/..%5c..%5coutside.txt${u.search}`,
      `/storage//etc/passwd${u.search}`,
      `/storage/${u.pathname.slice("/storage/".length)}/../../../../outside.txt${u.search}`,
      `/storage/${u.pathname.slice("/storage/".length).replace("original", "%2e%2e/original")}${u.search}`,
    ];
    for (const target of targets) {
      const r = await rawRequest(k.url, "PUT", target, { "content-type": "text/plain" }, "pwned");
      expect({ target, status: [403, 404, 400].includes(r.status) }).toEqual({ target, status: true });
      const g = await rawRequest(k.url, "GET", target);
      expect({ target, get: [403, 404, 400].includes(g.status), leak: g.text === "outside" }).toEqual({ target, get: true, leak: false });
    }
    expect(outsideFiles()).toEqual(before);
    expect(readFileSync(join(k.dataDir, "outside.txt"), "utf8")).toBe("outside");
    expect(existsSync(join(k.dataDir, "blobs", "orgs", a.orgId, "docs", i.document.id, "original"))).toBe(false);
    expect((await put(i.uploadUrl, "legit", "text/plain")).status).toBe(200);
  });

  test("even a correctly signed key with '..', an absolute path or odd characters is refused (400), nothing written or read", async () => {
    const before = outsideFiles();
    const evil = ["../outside.txt", "orgs/../../outside.txt", "/etc/passwd", "orgs/x/..", "orgs/x/./y", "orgs\\..\\outside.txt", "orgs/%2e%2e/outside.txt"];
    for (const key of evil) {
      const q = forge("GET", key, "text/plain");
      const g = await rawRequest(k.url, "GET", `/storage/${key}?${q}`);
      expect({ key, status: [400, 403, 404].includes(g.status), leak: g.text === "outside" }).toEqual({ key, status: true, leak: false });
      const nonce = crypto.randomUUID();
      const p = await rawRequest(k.url, "PUT", `/storage/${key}?${forge("PUT", key, "text/plain", nonce)}`, { "content-type": "text/plain" }, "pwned");
      expect({ key, status: [400, 403, 404].includes(p.status) }).toEqual({ key, status: true });
    }
    // The route never decodes the key, so an encoded slash stays a literal "%2f" and the blob store's key check refuses it.
    const direct = await rawRequest(k.url, "GET", `/storage/orgs%2f..%2f..%2foutside.txt?${forge("GET", "orgs%2f..%2f..%2foutside.txt", "text/plain")}`);
    expect(direct.status).toBe(400);
    expect(direct.text).toContain("InvalidArgument");
    expect(outsideFiles()).toEqual(before);
  });

  test("a filename full of path syntax is stored as given and never used in the object key", async () => {
    const filename = "../../../outside.txt";
    const i = await initOk(a, { corpusId, filename });
    expect(i.document.filename).toBe(filename);
    expect(new URL(i.uploadUrl).pathname).toBe(`/storage/orgs/${a.orgId}/docs/${i.document.id}/original`);
    expect((await put(i.uploadUrl, "content", "text/plain")).status).toBe(200);
    expect(readFileSync(join(k.dataDir, "outside.txt"), "utf8")).toBe("outside");
    const [row] = sql<{ blob_key: string }>(k, "SELECT blob_key FROM documents WHERE id = ?", i.document.id);
    expect(row!.blob_key).toBe(`orgs/${a.orgId}/docs/${i.document.id}/original`);
  });

  test("a document id that is not a UUID never reaches storage (400 naming the parameter)", async () => {
    for (const id of ["..%2F..%2Fetc", "%2e%2e", ".."]) {
      const r = await a.api("GET", `/v1/doc/${id}/download-url`);
      expect({ id, refused: [400, 404].includes(r.status) }).toEqual({ id, refused: true });
    }
    const r = await a.api("GET", `/v1/doc/not-a-uuid/download-url`);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("'id'");
    const alias = await a.api("GET", `/v1/post/attachment/..%2F..%2Fetc/download-url`);
    expect([400, 404]).toContain(alias.status);
  });

  test("a preview tile written by ingestion is served; one not written yet is 404 NoSuchKey", async () => {
    // A PDF uploaded and not committed: preview URLs are given (nothing uploaded would be a 409), no tile exists yet.
    const i = await initOk(a, { corpusId, contentType: "application/pdf", filename: "tiles.pdf" });
    expect((await put(i.uploadUrl, "%PDF-1.4\n%%EOF\n", "application/pdf")).status).toBe(200);
    const r = await a.api("GET", `/v1/doc/${i.document.id}/preview-urls?pages=0`);
    expect(r.status).toBe(200);
    const small = r.body.items.find((x: { size: string }) => x.size === "SMALL").url;
    const missing = await fetch(small);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("<Code>NoSuchKey</Code>");
    const dir = join(k.dataDir, "blobs", "orgs", a.orgId, "docs", i.document.id, "g0", "preview");
    mkdirSync(dir, { recursive: true });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    writeFileSync(join(dir, "0-SMALL.png"), png);
    const got = await fetch(small);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(png);
  });
});
