import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { recordedHashOf } from "./recorded-upload.ts";
import { inspectUpload } from "../../src/documents/inspect.ts";

// Commit reads a text upload a piece at a time (1 MiB) and a PDF's first KiB, instead of holding
// the whole object: the verdict, the size and the SHA-256 must be those of the whole file.
const sha = (b: Uint8Array) => new Bun.CryptoHasher("sha256").update(b).digest("hex");

test("a multi-MiB text: size and hash of the whole file; an invalid byte past the first piece, or a character cut between pieces, judged right", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-inspect-"));
  try {
    const blobs = new FsBlobStore(dir);
    const errors: unknown[] = [];
    const inspect = async (key: string, type: string, recorded?: string) =>
      inspectUpload(blobs, key, (await blobs.stat(key))?.size ?? 0, type, await recordedHashOf(blobs, key, type, recorded), (e) => errors.push(e));
    // "é" is two bytes; an odd prefix puts one of them across the 1 MiB piece boundary.
    const text = new TextEncoder().encode("x" + "é".repeat(1_500_000));
    await blobs.put("a/text", text);
    expect(await inspect("a/text", "text/plain")).toEqual({ size: text.length, reason: null, sha256: sha(text) });
    expect(await inspect("a/text", "text/markdown", "recorded")).toEqual({ size: text.length, reason: null, sha256: "recorded" });
    const broken = text.slice();
    broken[2_500_001] = 0xff;
    await blobs.put("a/broken", broken);
    expect((await inspect("a/broken", "text/plain"))?.reason).toBe("the file is not valid UTF-8 text");
    const nul = text.slice();
    nul.set([0x20, 0], 1_999_999); // one "é" becomes " " and NUL: still valid UTF-8
    await blobs.put("a/nul", nul);
    expect((await inspect("a/nul", "application/json"))?.reason).toBe("the file contains NUL bytes, so it is not text");
    expect(await inspect("a/missing", "text/plain")).toBeNull();
    expect(errors).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a PDF is judged by its first KiB, hashed whole when no hash was recorded", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-inspect-"));
  try {
    const blobs = new FsBlobStore(dir);
    const pdf = new Uint8Array(3 * 1024 * 1024).fill(0x20);
    pdf.set(new TextEncoder().encode("junk\n%PDF-1.7\n"));
    await blobs.put("p/ok", pdf);
    expect(await inspectUpload(blobs, "p/ok", pdf.length, "application/pdf", null, () => {})).toEqual({ size: pdf.length, reason: null, sha256: sha(pdf) });
    const late = new Uint8Array(4096).fill(0x20);
    late.set(new TextEncoder().encode("%PDF-1.7"), 2048); // past the first KiB: not a PDF header
    await blobs.put("p/late", late);
    expect((await inspectUpload(blobs, "p/late", late.length, "application/pdf", { size: late.length, sha256: "h", contentType: "application/pdf", verdict: null }, () => {}))?.reason).toBe("the file is not a PDF (no %PDF- header)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the storage route's verdict stands for the object when size and declared type match; otherwise the file is read", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-inspect-"));
  try {
    const blobs = new FsBlobStore(dir);
    const bytes = new TextEncoder().encode("plain text, no PDF header");
    await blobs.put("v/x", bytes);
    // A recorded verdict that disagrees with the file shows which one was used.
    const record = (over: object) => ({ size: bytes.length, sha256: "h", contentType: "Application/PDF; x=1", verdict: { reason: null }, ...over });
    const judge = (over: object) => inspectUpload(blobs, "v/x", bytes.length, "application/pdf", record(over), () => {});
    expect(await judge({})).toEqual({ size: bytes.length, reason: null, sha256: "h" });
    expect(await judge({ size: bytes.length + 1 })).toEqual({ size: bytes.length, reason: "the file is not a PDF (no %PDF- header)", sha256: sha(bytes) });
    expect(await judge({ contentType: "text/plain" })).toEqual({ size: bytes.length, reason: "the file is not a PDF (no %PDF- header)", sha256: "h" });
    expect(await judge({ verdict: null })).toEqual({ size: bytes.length, reason: "the file is not a PDF (no %PDF- header)", sha256: "h" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
