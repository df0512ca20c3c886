import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { XLSX } from "../../src/ingest/formats.ts";
import { xlsx } from "./xlsx-fixture.ts";

test("each XLSX sheet becomes a ## section with a markdown table", async () => {
  expect(await convert(await xlsx(), XLSX)).toEqual({
    nbPages: 0,
    markdown:
      "## Sales 2024\n\n| Region | Amount | Ok |\n| --- | --- | --- |\n| North & \\|West\\| | 12.5 | TRUE |\n|  | 7 |  |\n\n## Empty\n",
  });
});

test("an XLSX part with a DOCTYPE is refused", async () => {
  const evil = `<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY x SYSTEM "file:///etc/passwd">]><sst><si><t>&x;</t></si></sst>`;
  const err = await convert(await xlsx({ "xl/sharedStrings.xml": evil }), XLSX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toContain("xl/sharedStrings.xml contains a DOCTYPE");
});

test("XLSX archives obey the zip limits", async () => {
  const err = await convert(await xlsx(), XLSX, { maxUncompressedBytes: 100 }).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toContain("more than 100 bytes uncompressed");
});
