import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { XLSX } from "../../src/ingest/formats.ts";
import { xlsx } from "./xlsx-fixture.ts";

// A sheet's table pads every row to its widest: one cell in column ALL (the 1000th) over 100,000
// one-cell rows is a few KiB of zip and 300 MB of table, which ran the worker to its memory limit.
// The tables' size is now known before they are built and held to the uncompressed-size limit.

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));
const ragged = (rows: number) => xlsx({
  "xl/worksheets/sheet1.xml": `<?xml version="1.0"?><worksheet ${NS}><sheetData><row><c r="ALL1"><v>1</v></c></row>${"<row><c><v>2</v></c></row>".repeat(rows)}</sheetData></worksheet>`,
});

test("one wide row over many short ones is refused before its table is built", async () => {
  const bytes = await ragged(100_000);
  expect(bytes.length).toBeLessThan(20_000);
  const t0 = performance.now();
  expect(await reason(convert(bytes, XLSX)))
    .toBe("the XLSX's tables would hold more than 200 MiB of text (each row padded to the widest row of its sheet), over the limit");
  expect(performance.now() - t0).toBeLessThan(5_000);
});

test("a table under the limit converts", async () => {
  const md = (await convert(await ragged(100), XLSX, { maxUncompressedBytes: 2 ** 20 })).markdown;
  expect(md.split("\n").filter((l) => l.startsWith("| 2 |")).length).toBe(100);
});
