import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put } from "../documents/helpers.ts";

const MAX = 4096;
let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--max-upload-bytes", String(MAX)] });
  a = await k.org();
  corpusId = await corpus(a);
}, 60_000); // starting a server and registering a key can pass 5 s on a loaded 2-core machine
afterAll(() => k.stop());

/** Every file under <data>/blobs, relative: a refused upload must leave none (no partial, no temp). */
function blobFiles(): string[] {
  const root = join(k.dataDir, "blobs");
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .sort();
}

function chunked(total: number, chunk = 1000): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n).fill(120));
    },
  });
}

describe("maximum upload size", () => {
  test("exactly the maximum is accepted", async () => {
    const i = await initOk(a, { corpusId });
    expect((await put(i.uploadUrl, "y".repeat(MAX), "text/plain")).status).toBe(200);
    expect(readFileSync(join(k.dataDir, "blobs", "orgs", a.orgId, "docs", i.document.id, "original")).length).toBe(MAX);
  });

  test("a declared Content-Length over the maximum answers 413 EntityTooLarge before any write", async () => {
    const before = blobFiles();
    const i = await initOk(a, { corpusId });
    const r = await put(i.uploadUrl, "z".repeat(MAX + 1), "text/plain");
    expect(r.status).toBe(413);
    expect(r.text).toContain("<Code>EntityTooLarge</Code>");
    expect(blobFiles()).toEqual(before);
  });

  test("a chunked body (no Content-Length) streaming past the maximum answers 413 and leaves no partial file", async () => {
    const before = blobFiles();
    const i = await initOk(a, { corpusId });
    // keepalive: false, or Bun's fetch may hand this half-sent socket to the next test's init (400).
    const r = await fetch(i.uploadUrl, { method: "PUT", body: chunked(MAX * 3), headers: { "content-type": "text/plain" }, keepalive: false });
    expect(r.status).toBe(413);
    expect(await r.text()).toContain("EntityTooLarge");
    expect(blobFiles()).toEqual(before);
    // A chunked body within the limit is fine. The 413 said `Connection: close`, but Bun's fetch
    // may still hand its half-sent socket to the next request (the server then sees the rest of
    // the first body and answers 400): ask for a fresh connection.
    const ok = await fetch(i.uploadUrl, { method: "PUT", body: chunked(MAX, 100), headers: { "content-type": "text/plain" }, keepalive: false });
    expect(ok.status).toBe(200);
  });

  test("a body far beyond the server's request limit still answers 413", async () => {
    const i = await initOk(a, { corpusId });
    const r = await put(i.uploadUrl, new Uint8Array(3 * 1024 * 1024), "text/plain");
    expect(r.status).toBe(413);
    expect(existsSync(join(k.dataDir, "blobs", "orgs", a.orgId, "docs", i.document.id, "original"))).toBe(false);
  });

  test("commit refuses a stored object above the limit with 413 (limit lowered after upload)", async () => {
    // Upload on a server with a high limit, then restart the same data dir with a lower one.
    const s1 = await startKbqa({ keepData: true, flags: ["--max-upload-bytes", "10000"] });
    const o = await s1.org();
    const c = await corpus(o);
    const i = await initOk(o, { corpusId: c });
    expect((await put(i.uploadUrl, "q".repeat(5000), "text/plain")).status).toBe(200);
    await s1.stop();
    const s2 = await startKbqa({ dataDir: s1.dataDir, flags: ["--max-upload-bytes", "1000"] });
    try {
      const jwtOrg = { ...o, api: async (m: string, p: string) => s2.request(m, p, undefined, { authorization: `Bearer ${await o.jwt()}` }) };
      const r = await jwtOrg.api("POST", `/v1/doc/${i.document.id}/commit`);
      expect(r.status).toBe(413);
      const d = await jwtOrg.api("GET", `/v1/doc/${i.document.id}`);
      expect(d.body.status).toBe("FAILED");
      expect(d.body.statusMsg).toContain("maximum");
    } finally {
      await s2.stop();
      (await import("node:fs")).rmSync(s1.dataDir, { recursive: true, force: true });
    }
  }, 60_000); // two servers of its own, one after the other
});
