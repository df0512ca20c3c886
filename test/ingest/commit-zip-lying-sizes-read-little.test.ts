import { expect, test } from "bun:test";
import JSZip from "jszip";
import { DOCX } from "../../src/ingest/formats.ts";
import { sniffArchive } from "../../src/ingest/sniff.ts";
import { bufferSource, type ByteSource } from "../../src/ingest/convert/zip.ts";
import { docxParts } from "../convert/fixtures.ts";

// Commit judges an Office upload (one the storage route did not judge: over 16 MiB, or sent without a
// length) by its zip directory and [Content_Types].xml, read on the server's event loop where they
// are. Two lies made it read the rest of the file instead: a directory offset of 0 (the directory
// was read from there to the end of the archive, to find its first entry was not one; four
// concurrent commits of 95 MB such files took the server up by 190 MiB and held /pub/ping 170 ms),
// and a [Content_Types].xml declaring a compressed size of tens of MB (read whole before inflating).

const BIG = 24 * 2 ** 20;

/** A source over `bytes` that counts what is read of it. */
function counted(bytes: Uint8Array): ByteSource & { bytesRead: number } {
  const inner = bufferSource(bytes);
  const src = { size: inner.size, bytesRead: 0, read: (offset: number, length: number) => { src.bytesRead += length; return inner.read(offset, length); } };
  return src;
}

async function docxWithBigStoredPart(): Promise<Uint8Array> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries(docxParts())) zip.file(name, data);
  zip.file("word/media/big.bin", new Uint8Array(BIG), { compression: "STORE" });
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

function eocdAt(zip: Uint8Array): number {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  for (let i = zip.length - 22; i >= 0; i--) if (view.getUint32(i, true) === 0x06054b50) return i;
  throw new Error("no EOCD");
}

test("a directory offset of 0 in a 24 MiB upload: refused after reading under 1 MiB of it", async () => {
  const zip = (await docxWithBigStoredPart()).slice();
  new DataView(zip.buffer).setUint32(eocdAt(zip) + 16, 0, true);
  const src = counted(zip);
  expect(sniffArchive(src, DOCX)).toBe("invalid zip archive: corrupt central directory");
  expect(src.bytesRead).toBeLessThan(2 ** 20);
});

test("[Content_Types].xml declaring a 24 MiB compressed size: refused unread", async () => {
  const zip = (await docxWithBigStoredPart()).slice();
  const view = new DataView(zip.buffer);
  const cd = view.getUint32(eocdAt(zip) + 16, true);
  // JSZip writes the parts in order: [Content_Types].xml is the first entry, at the start of the file,
  // so a compressed size reaching into the big part stays within the file.
  expect(new TextDecoder().decode(zip.subarray(cd + 46, cd + 46 + view.getUint16(cd + 28, true)))).toBe("[Content_Types].xml");
  view.setUint32(cd + 20, BIG, true);
  const src = counted(zip);
  expect(sniffArchive(src, DOCX)).toBe("[Content_Types].xml is implausibly large");
  expect(src.bytesRead).toBeLessThan(2 ** 20);
});

test("an honest archive of the same size is read as little and accepted", async () => {
  const src = counted(await docxWithBigStoredPart());
  expect(sniffArchive(src, DOCX)).toBeNull();
  expect(src.bytesRead).toBeLessThan(2 ** 20);
});
