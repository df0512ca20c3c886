// Encoded spellings of a key (NUL, double-encoded dots, encoded slashes and backslashes) are
// never decoded into another key: each is a 403 S3-style refusal of the signature, or, when the
// attacker somehow holds a valid signature for it, the blob store's 400. Nothing is written and
// the real URL stays usable. (traversal.test.ts accepts 400, 403 or 404; these are exact.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { presignedPath } from "../../src/storage/sign.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put } from "../documents/helpers.ts";
import { rawRequest } from "./raw.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
}, 60_000);
afterAll(() => k.stop());

const blobFiles = () => readdirSync(join(k.dataDir, "blobs"), { recursive: true }).map(String).sort();
const code = (text: string) => /<Code>([^<]+)<\/Code>/.exec(text)?.[1];

test("encoded spellings of a real upload key: 403 SignatureDoesNotMatch, nothing written, the URL still works", async () => {
  const i = await initOk(a, { corpusId });
  const u = new URL(i.uploadUrl);
  const key = u.pathname.slice("/storage/".length);
  const before = blobFiles();
  const spellings = [
    key.replace(/\//g, "%2F"),
    key.replace(/\//g, "%2f"),
    key.replace(/\//g, "%5C"),
    key.replace(/\//g, "%252F"),
    key.replace("original", "%6Friginal"),
    `${key}%00`,
    key.replace("original", "orig%00inal"),
    `${key}/..%00`,
    `${key}/%252e%252e/%252e%252e/outside`,
    `${key}/..%2F..%2F..%2Foutside`,
    `${key}%5C..%5C..%5Coutside`,
  ];
  for (const s of spellings) {
    const r = await rawRequest(k.url, "PUT", `/storage/${s}${u.search}`, { "content-type": "text/plain" }, "pwned");
    expect({ s, status: r.status, code: code(r.text) }).toEqual({ s, status: 403, code: "SignatureDoesNotMatch" });
  }
  expect(blobFiles()).toEqual(before);
  expect(existsSync(join(k.dataDir, "blobs", key))).toBe(false);
  expect((await put(i.uploadUrl, "legit", "text/plain")).status).toBe(200);
  expect(readFileSync(join(k.dataDir, "blobs", key), "utf8")).toBe("legit");
});

test("a validly signed key holding NUL, double-encoded dots or backslashes is refused 400 InvalidArgument, nothing written", async () => {
  const secret = Buffer.from(readFileSync(join(k.dataDir, "storage.secret"), "utf8").trim(), "hex");
  const expires = Math.floor(Date.now() / 1000) + 600;
  const before = blobFiles();
  for (const key of ["orgs%00", "orgs/x%00/original", "orgs/%252e%252e/%252e%252e/outside", "orgs%5C..%5Coutside", "orgs/x/original/"]) {
    const put = presignedPath(secret, { method: "PUT", key, expires, contentType: "text/plain", nonce: crypto.randomUUID() });
    const p = await rawRequest(k.url, "PUT", put, { "content-type": "text/plain" }, "pwned");
    expect({ key, status: p.status, code: code(p.text) }).toEqual({ key, status: 400, code: "InvalidArgument" });
    const get = presignedPath(secret, { method: "GET", key, expires, contentType: "text/plain", generation: 0 });
    const g = await rawRequest(k.url, "GET", get);
    expect({ key, status: g.status, code: code(g.text) }).toEqual({ key, status: 400, code: "InvalidArgument" });
  }
  expect(blobFiles()).toEqual(before);
});
