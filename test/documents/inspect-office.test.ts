import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { recordedHashOf } from "./recorded-upload.ts";
import { inspectUpload } from "../../src/documents/inspect.ts";
import { sniffArchive } from "../../src/ingest/sniff.ts";
import { bufferSource, type ByteSource } from "../../src/ingest/convert/zip.ts";
import { DOCX, XLSX } from "../../src/ingest/formats.ts";
import { docx } from "../convert/fixtures.ts";
import { rng } from "../helpers/seeded.ts";

// Commit judges an Office upload by its zip directory and [Content_Types].xml, read where they
// are, instead of holding the whole file (up to --max-upload-bytes) in the server's memory.
const sha = (b: Uint8Array) => new Bun.CryptoHasher("sha256").update(b).digest("hex");

async function bigDocx(): Promise<Uint8Array> {
  const next = rng(7);
  const media = new Uint8Array(8 << 20).map(() => next() * 256); // incompressible: the zip stays ~8 MiB
  return docx({ "word/media/image1.bin": media });
}

test("an 8 MiB DOCX is judged by a few KiB of reads, with the same verdicts as the whole-file check", async () => {
  const bytes = await bigDocx();
  expect(bytes.length).toBeGreaterThan(8 << 20);
  let read = 0;
  const counting = (inner: ByteSource): ByteSource => ({ size: inner.size, read: (o, n) => ((read += n), inner.read(o, n)) });
  expect(sniffArchive(counting(bufferSource(bytes)), DOCX)).toBeNull();
  expect(read).toBeLessThan(96 * 1024);
  read = 0;
  expect(sniffArchive(counting(bufferSource(bytes)), XLSX)).toBe("the zip has no xl/ parts");
  expect(read).toBeLessThan(96 * 1024);
});

test("commit's inspection of Office files: size, hash and verdict of the stored file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-inspect-office-"));
  try {
    const blobs = new FsBlobStore(dir);
    const errors: unknown[] = [];
    const inspect = async (key: string, type: string, recorded?: string) =>
      inspectUpload(blobs, key, (await blobs.stat(key))?.size ?? 0, type, await recordedHashOf(blobs, key, type, recorded), (e) => errors.push(e));
    const bytes = await bigDocx();
    await blobs.put("o/big", bytes);
    expect(await inspect("o/big", DOCX, "recorded")).toEqual({ size: bytes.length, reason: null, sha256: "recorded" });
    expect(await inspect("o/big", DOCX)).toEqual({ size: bytes.length, reason: null, sha256: sha(bytes) });
    expect(await inspect("o/big", XLSX, "recorded")).toEqual({ size: bytes.length, reason: "the zip has no xl/ parts", sha256: "recorded" });
    // Cut before its directory: no end record to find.
    const cut = bytes.subarray(0, bytes.length - 2000);
    await blobs.put("o/cut", cut);
    expect(await inspect("o/cut", DOCX, "recorded")).toEqual({ size: cut.length, reason: "invalid zip archive: end of central directory not found", sha256: "recorded" });
    const text = new TextEncoder().encode("PK but not a zip");
    await blobs.put("o/text", text);
    expect(await inspect("o/text", DOCX)).toEqual({ size: text.length, reason: "the file is not a zip-based Office document (no zip signature)", sha256: sha(text) });
    expect(await inspect("o/missing", DOCX)).toBeNull();
    expect(errors).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
