import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, constants, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { DIRECT_MIN_BYTES, writeUpload } from "../../src/storage/write.ts";

// Declared bodies of DIRECT_MIN_BYTES or more go from the request's memory to the disk with
// O_DIRECT (no page cache), the last partial block through a padded copy and a truncate. Every
// size that exercises the alignment must come back byte for byte, with no temporary file left.
const root = mkdtempSync(join(tmpdir(), "kbqa-write-direct-"));
const blobs = new FsBlobStore(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Whether this filesystem takes O_DIRECT at all (ext4 and a recent tmpfs do; the writer falls back elsewhere). */
const odirect = (() => {
  try {
    closeSync(openSync(join(root, "probe"), constants.O_WRONLY | constants.O_CREAT | constants.O_DIRECT));
    return true;
  } catch {
    return false;
  } finally {
    rmSync(join(root, "probe"), { force: true });
  }
})();

const bytesOf = (n: number, salt: number) => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + salt + (i >> 9)) & 0xff;
  return b;
};
const declared = (b: Uint8Array<ArrayBuffer>) =>
  new Request("http://storage.test/x", { method: "PUT", body: b, headers: { "content-length": String(b.length) } });
const sha256 = (b: Uint8Array) => new Bun.CryptoHasher("sha256").update(b).digest("hex");
const stored = (key: string) => new Uint8Array(readFileSync(join(root, key, "original")));

describe("writeUpload straight to the disk", () => {
  const sizes = [DIRECT_MIN_BYTES, DIRECT_MIN_BYTES + 1, 3 * 4096 * 50 + 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 4095, 5 * (1 << 20) + 7];
  for (const [n, size] of sizes.entries()) {
    test(`${size} bytes: stored byte for byte, hashed, inspected once, ${odirect ? "past the page cache" : "through the page cache (no O_DIRECT here)"}`, async () => {
      const body = bytesOf(size, n);
      const seen: number[] = [];
      const r = await writeUpload(blobs, `s${n}/original`, declared(body), 1 << 30, { inspect: (b) => seen.push(b.length) });
      expect({ size: r.size, sha: r.sha256.toString("hex"), direct: r.direct, seen }).toEqual({ size, sha: sha256(body), direct: odirect, seen: [size] });
      expect(stored(`s${n}`)).toEqual(body);
      expect(readdirSync(join(root, `s${n}`))).toEqual(["original"]);
    });
  }

  test("a declared body under DIRECT_MIN_BYTES, or with direct writes turned off, goes through the page cache, inspected once all the same", async () => {
    for (const [key, size, opts] of [["small", DIRECT_MIN_BYTES - 1, {}], ["off", 300_001, { direct: false }]] as const) {
      const body = bytesOf(size, 9);
      const seen: number[] = [];
      const r = await writeUpload(blobs, `${key}/original`, declared(body), 1 << 30, { ...opts, inspect: (b) => seen.push(b.length) });
      expect({ direct: r.direct, sha: r.sha256.toString("hex"), seen }).toEqual({ direct: false, sha: sha256(body), seen: [size] });
      expect(stored(key)).toEqual(body);
    }
  });

  test("a streamed body (no declared length) is never inspected: commit reads the object instead", async () => {
    const body = bytesOf(200_000, 3);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(body.slice(0, 70_000));
        c.enqueue(body.slice(70_000));
        c.close();
      },
    });
    const req = new Request("http://storage.test/x", { method: "PUT", body: stream, duplex: "half" } as RequestInit);
    let inspected = 0;
    const r = await writeUpload(blobs, "streamed/original", req, 1 << 30, { inspect: () => inspected++ });
    expect({ direct: r.direct, inspected, sha: r.sha256.toString("hex") }).toEqual({ direct: false, inspected: 0, sha: sha256(body) });
    expect(stored("streamed")).toEqual(body);
  });

  test("an inspection that throws fails the write, after the device write has ended, and leaves no file", async () => {
    const body = bytesOf(1 << 20, 4);
    const e = await writeUpload(blobs, "thrown/original", declared(body), 1 << 30, {
      inspect: () => {
        throw new Error("inspector failed");
      },
    }).catch((x) => x);
    expect((e as Error).message).toBe("inspector failed");
    expect(readdirSync(join(root, "thrown"))).toEqual([]);
  });
});
