import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { HOLD_FOR_HASH_MAX, TooLarge, writeUpload } from "../../src/storage/write.ts";

// writeUpload in-process, with a request body whose chunk boundaries the test chooses
// (over HTTP the server's reads decide them).
const root = mkdtempSync(join(tmpdir(), "kbqa-write-"));
const blobs = new FsBlobStore(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function requestOf(chunks: Uint8Array[]): Request {
  let n = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (n < chunks.length) c.enqueue(chunks[n++]!);
      else c.close();
    },
  });
  return new Request("http://storage.test/x", { method: "PUT", body, duplex: "half" } as RequestInit);
}

function pieces(sizes: number[]): { chunks: Uint8Array<ArrayBuffer>[]; whole: Uint8Array<ArrayBuffer> } {
  const whole = new Uint8Array(sizes.reduce((a, b) => a + b, 0));
  for (let i = 0; i < whole.length; i++) whole[i] = (i * 131 + (i >> 12)) & 0xff;
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let off = 0;
  for (const s of sizes) chunks.push(whole.slice(off, (off += s)));
  return { chunks, whole };
}

const sha256 = (b: Uint8Array<ArrayBuffer>) => new Bun.CryptoHasher("sha256").update(b).digest("hex");

describe("writeUpload", () => {
  test("stores the chunks in order and returns their size and SHA-256", async () => {
    const { chunks, whole } = pieces([1, 70_000, 3, 250_000]);
    const r = await writeUpload(blobs, "a/original", requestOf(chunks), 1 << 30);
    expect([r.size, r.sha256.toString("hex")]).toEqual([whole.length, sha256(whole)]);
    expect(new Uint8Array(readFileSync(join(root, "a", "original")))).toEqual(whole);
    expect(readdirSync(join(root, "a"))).toEqual(["original"]);
  });

  test("past the hold-for-hash bound, chunks are still hashed in arrival order", async () => {
    // 10,000 bytes of room left under the bound, a chunk that crosses it, then more held chunks.
    const { chunks, whole } = pieces([HOLD_FOR_HASH_MAX - 10_000, 20_000, 4_000, 4_000, 4_000]);
    const r = await writeUpload(blobs, "b/original", requestOf(chunks), 1 << 30);
    expect([r.size, r.sha256.toString("hex")]).toEqual([whole.length, sha256(whole)]);
    expect(sha256(new Uint8Array(readFileSync(join(root, "b", "original"))))).toBe(sha256(whole));
  });

  test("many chunks, flushed while later ones are written, are stored whole with no temporary file left", async () => {
    const { chunks, whole } = pieces(Array.from({ length: 40 }, (_, i) => 70_000 + i * 997));
    const r = await writeUpload(blobs, "f/original", requestOf(chunks), 1 << 30);
    expect([r.size, r.sha256.toString("hex")]).toEqual([whole.length, sha256(whole)]);
    expect(new Uint8Array(readFileSync(join(root, "f", "original")))).toEqual(whole);
    expect(readdirSync(join(root, "f"))).toEqual(["original"]);
    expect(r.timing.fsync).toBeGreaterThan(0);
  });

  test("a body with a declared length is read whole and stored with its SHA-256", async () => {
    const { whole } = pieces([300_000]);
    const req = new Request("http://storage.test/x", { method: "PUT", body: whole, headers: { "content-length": String(whole.length) } });
    const r = await writeUpload(blobs, "g/original", req, 1 << 30);
    expect([r.size, r.sha256.toString("hex")]).toEqual([whole.length, sha256(whole)]);
    expect(new Uint8Array(readFileSync(join(root, "g", "original")))).toEqual(whole);
    expect(readdirSync(join(root, "g"))).toEqual(["original"]);
  });

  test("an empty body is an empty object", async () => {
    const r = await writeUpload(blobs, "c/original", requestOf([]), 10);
    expect([r.size, r.sha256.toString("hex")]).toEqual([0, sha256(new Uint8Array(0))]);
    expect(readFileSync(join(root, "c", "original")).length).toBe(0);
  });

  test("a body streaming past the maximum throws TooLarge and leaves neither object nor temporary file", async () => {
    const { chunks } = pieces([600, 600]);
    const e = await writeUpload(blobs, "d/original", requestOf(chunks), 1000).catch((x) => x);
    expect(e).toBeInstanceOf(TooLarge);
    expect(readdirSync(join(root, "d"))).toEqual([]);
  });

  test("a key whose directory cannot be created rejects and leaves the store as it was", async () => {
    writeFileSync(join(root, "e"), "a file where the key needs a directory");
    const before = readdirSync(root).sort();
    const e = await writeUpload(blobs, "e/original", requestOf(pieces([10]).chunks), 1000).catch((x) => x);
    expect((e as NodeJS.ErrnoException).code).toMatch(/^(EEXIST|ENOTDIR)$/);
    expect(readdirSync(root).sort()).toEqual(before);
  });
});
