import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import { docx, docxParts, patchDeclaredSizes, zipOf } from "./fixtures.ts";

test("DOCX headings, bullet and numbered lists and tables become markdown", async () => {
  const out = await convert(await docx(), DOCX);
  expect(out).toEqual({
    nbPages: 0,
    markdown: [
      "# Annual Report",
      "Intro paragraph with text.",
      "## Goals",
      "- First goal\n- Second goal",
      "1. Step one\n2. Step two",
      "| Name | Value |\n| --- | --- |\n| a\\|b | 2 |",
    ].join("\n\n") + "\n",
  });
});

test("a DOCX whose declared uncompressed total exceeds the limit is refused before inflating", async () => {
  const lying = patchDeclaredSizes(await docx(), 0x7fffffff);
  const err = await convert(lying, DOCX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toContain("more than 200 MiB uncompressed");
  expect(err.message).toContain("refused before decompression");
});

test("a real compression bomb is refused by the size limit", async () => {
  const bomb = await docx({ "word/media/zeros.bin": new Uint8Array(4 * 1024 * 1024) });
  expect(bomb.byteLength).toBeLessThan(64 * 1024);
  const err = await convert(bomb, DOCX, { maxUncompressedBytes: 1024 * 1024 }).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toContain("more than 1 MiB uncompressed");
});

test("an entry that inflates beyond its declared size is refused", async () => {
  const small = patchDeclaredSizes(await docx({ "word/media/zeros.bin": new Uint8Array(100_000) }), 10);
  const err = await convert(small, DOCX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toStartWith("invalid zip archive: entry ");
  expect(err.message).toEndWith(" inflates beyond its declared size");
});

test("too many zip entries are refused (default limit 10000)", async () => {
  const parts = docxParts();
  for (let i = 0; i < 10_001; i++) parts[`word/junk/${i}.txt`] = "";
  const err = await convert(await zipOf(parts), DOCX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toContain("more than the limit of 10000 entries");
});

test("the entry limit is configurable", async () => {
  // 6 files plus the 3 folder entries jszip writes
  const err = await convert(await docx(), DOCX, { maxZipEntries: 3 }).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toBe("archive has 9 entries, more than the limit of 3 entries");
});

test("an XML part with a DOCTYPE (entity expansion) is refused", async () => {
  const evil = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>`;
  const err = await convert(await docx({ "word/document.xml": evil }), DOCX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toBe("archive part word/document.xml contains a DOCTYPE declaration, which is refused for safety");
});

test("a DOCTYPE hidden in a UTF-16 part is refused too", async () => {
  const s = `\ufeff<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE x SYSTEM "file:///etc/passwd"><w:styles/>`;
  const utf16 = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) new DataView(utf16.buffer).setUint16(i * 2, s.charCodeAt(i), true);
  const err = await convert(await docx({ "word/styles.xml": utf16 }), DOCX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toContain("word/styles.xml contains a DOCTYPE");
});

test("a zip without word/document.xml or a non-zip is a clear failure", async () => {
  const a = await convert(await docx({ "word/document.xml": null }), DOCX).catch((e) => e);
  expect(a.message).toBe("the DOCX has no word/document.xml part");
  const b = await convert(new TextEncoder().encode("not a zip at all, just text"), DOCX).catch((e) => e);
  expect(b).toBeInstanceOf(ConversionError);
  expect(b.message).toStartWith("invalid zip archive");
});
