import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put } from "../documents/helpers.ts";
import { HOLD_FOR_HASH_MAX } from "../../src/storage/write.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--max-upload-bytes", String(HOLD_FOR_HASH_MAX + 1024 * 1024)] });
  a = await k.org();
  corpusId = await corpus(a);
}, 60_000); // starting a server and registering a key can pass 5 s on a loaded 2-core machine
afterAll(() => k.stop());

const docDir = (docId: string) => join(k.dataDir, "blobs", "orgs", a.orgId, "docs", docId);
const sha256 = (b: Uint8Array) => new Bun.CryptoHasher("sha256").update(b).digest();
const etagOf = (b: Uint8Array) => `"${sha256(b).toString("hex")}"`;
const bytes = (n: number, seed: number) => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
};

/** Sends headers and only part of the declared body over TCP, then drops the connection. */
function truncatedPut(url: string, declared: number, sent: number, extra: Record<string, string> = {}): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => {
      const h = { host: u.host, "content-type": "text/plain", "content-length": String(declared), ...extra };
      s.write(`PUT ${u.pathname}${u.search} HTTP/1.1\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n`);
      s.write(new Uint8Array(sent).fill(120), () => {
        s.destroy();
        resolve();
      });
    });
    s.on("error", reject);
  });
}

describe("storage writes", () => {
  test("a body with Content-Length is stored byte for byte; ETag and x-amz-checksum-sha256 are its SHA-256; Server-Timing splits the phases", async () => {
    const i = await initOk(a, { corpusId });
    const body = bytes(1024 * 1024, 1);
    const r = await put(i.uploadUrl, body, "text/plain");
    expect(r.status).toBe(200);
    expect([r.headers.get("etag"), r.headers.get("x-amz-checksum-sha256")]).toEqual([etagOf(body), sha256(body).toString("base64")]);
    expect(new Uint8Array(readFileSync(join(docDir(i.document.id), "original")))).toEqual(body);
    const phases = (r.headers.get("server-timing") ?? "").split(", ").map((p) => p.split(";")[0]);
    expect(phases).toEqual(["claim", "open", "recv", "write", "hash", "fsync", "rename", "dirsync", "complete", "total"]);
    expect(readdirSync(docDir(i.document.id))).toEqual(["original"]);
  });

  test("a chunked body (no Content-Length) is stored byte for byte with the same ETag rule", async () => {
    const i = await initOk(a, { corpusId });
    const body = bytes(300_000, 2);
    let off = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (off >= body.length) return c.close();
        c.enqueue(body.slice(off, off + 7000));
        off += 7000;
      },
    });
    const r = await fetch(i.uploadUrl, { method: "PUT", body: stream, headers: { "content-type": "text/plain" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe(etagOf(body));
    expect(new Uint8Array(readFileSync(join(docDir(i.document.id), "original")))).toEqual(body);
  });

  test("a declared body above the hold-for-hash bound is stored intact and hashed in order", async () => {
    const i = await initOk(a, { corpusId });
    const body = bytes(HOLD_FOR_HASH_MAX + 4096, 3);
    const r = await put(i.uploadUrl, body, "text/plain");
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe(etagOf(body));
    const stored = readFileSync(join(docDir(i.document.id), "original"));
    expect([stored.length, etagOf(new Uint8Array(stored))]).toEqual([body.length, etagOf(body)]);
  });

  for (const [label, declared] of [["small", 200_000], ["above the hold-for-hash bound", HOLD_FOR_HASH_MAX + 1024]] as const) {
    test(`a client dropping mid-body (declared length ${label}) leaves no file, and the URL can be used again`, async () => {
      const i = await initOk(a, { corpusId });
      await truncatedPut(i.uploadUrl, declared, 50_000);
      // The claim is released once the server notices: poll with a fresh, complete PUT.
      const body = bytes(1000, 4);
      await waitFor(async () => {
        const dir = docDir(i.document.id);
        const leftovers = existsSync(dir) ? readdirSync(dir) : [];
        if (leftovers.length) return false;
        return (await put(i.uploadUrl, body, "text/plain")).status === 200;
      }, "the interrupted upload to be released", 20_000);
      expect(readdirSync(docDir(i.document.id))).toEqual(["original"]);
      expect(new Uint8Array(readFileSync(join(docDir(i.document.id), "original")))).toEqual(body);
    }, 30_000); // the poll above may take up to 20 s
  }
});
