import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { utf8 } from "./fixtures.ts";

// A CSV's markdown table pads every row to its widest row. A 197 KiB upload (a header of 100,001
// fields, then 1,000 one-field rows) became 300 MB of table: the worker ran to its 1 GiB memory limit
// and the uploader was told to split the document. The table's size is now known before it is built
// and held to the uncompressed-size limit.

const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));
const ragged = (fields: number, rows: number) => utf8("h" + ",h".repeat(fields - 1) + "\n" + "y\n".repeat(rows));

test("a wide header over many short rows is refused at once, naming the padding", async () => {
  const t0 = performance.now();
  expect(await reason(convert(ragged(100_001, 1_000), "text/csv")))
    .toBe("the CSV's table would hold more than 200 MiB of text (each of its rows padded to the 100001 columns of its widest row), over the limit");
  expect(performance.now() - t0).toBeLessThan(5_000);
});

test("the bound follows the configured limit; a table under it converts", async () => {
  expect(await reason(convert(ragged(1_000, 500), "text/csv", { maxUncompressedBytes: 2 ** 20 })))
    .toBe("the CSV's table would hold more than 1 MiB of text (each of its rows padded to the 1000 columns of its widest row), over the limit");
  const md = (await convert(ragged(1_000, 100), "text/csv", { maxUncompressedBytes: 2 ** 20 })).markdown;
  expect(md.split("\n").filter((l) => l.startsWith("| y |")).length).toBe(100);
});
