import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { XLSX } from "../../src/ingest/formats.ts";
import { xlsx } from "./xlsx-fixture.ts";

// One shared string of 500 KB referenced from 5,000 cells: a 3 KiB upload whose cells hold 2.5 GB of
// text. The zip limit never saw it (the parts are small); the worker ran for 38 s to its 1 GiB memory
// limit and the uploader was told to split the document. Cell text now counts against the same
// uncompressed-size limit as the archive's parts.

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const sheet = (rows: string) => `<?xml version="1.0"?><worksheet ${NS}><sheetData>${rows}</sheetData></worksheet>`;
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));

/** `cells` cells, all showing shared string 0, which holds `chars` characters. */
const repeated = (chars: number, cells: number) => xlsx({
  "xl/sharedStrings.xml": `<?xml version="1.0"?><sst ${NS}><si><t>${"word ".repeat(chars / 5)}</t></si></sst>`,
  "xl/worksheets/sheet1.xml": sheet(('<row>' + '<c t="s"><v>0</v></c>'.repeat(100) + '</row>').repeat(cells / 100)),
});

test("a shared string repeated into gigabytes of cell text is refused, naming the limit", async () => {
  const bytes = await repeated(500_000, 5_000);
  expect(bytes.length).toBeLessThan(10_000);
  const t0 = performance.now();
  expect(await reason(convert(bytes, XLSX)))
    .toBe("the XLSX's cells hold more than 200 MiB of text (a few shared strings repeated across many cells), over the limit");
  expect(performance.now() - t0).toBeLessThan(10_000);
});

test("the cap follows the configured uncompressed-size limit; text under it converts", async () => {
  const bytes = await repeated(1_000, 2_000); // 2 MB of cell text
  expect(await reason(convert(bytes, XLSX, { maxUncompressedBytes: 2 ** 20 })))
    .toBe("the XLSX's cells hold more than 1 MiB of text (a few shared strings repeated across many cells), over the limit");
  expect((await convert(bytes, XLSX, { maxUncompressedBytes: 4 * 2 ** 20 })).markdown).toContain("word word");
});
