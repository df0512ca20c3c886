import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { PPTX } from "../../src/ingest/formats.ts";
import { pptx } from "./pptx-fixture.ts";

// A slide's table pads every row to its widest: a row of 100,000 cells over 10,000 one-cell rows is a
// few KiB of zip and 3 GB of table, built before the slide-text limit could see it. The table's size
// now counts against that limit before it is built.

const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));
const cell = "<a:tc><a:txBody><a:p><a:r><a:t>c</a:t></a:r></a:p></a:txBody></a:tc>";
const ragged = (wide: number, rows: number) => pptx({
  "ppt/slides/slide1.xml": `<?xml version="1.0"?><p:sld ${P}><p:cSld><p:spTree><p:graphicFrame><a:graphic><a:graphicData><a:tbl>` +
    `<a:tr>${cell.repeat(wide)}</a:tr>${`<a:tr>${cell}</a:tr>`.repeat(rows)}</a:tbl></a:graphicData></a:graphic></p:graphicFrame></p:spTree></p:cSld></p:sld>`,
});

test("a wide row over many short ones is refused before the table is built", async () => {
  const bytes = await ragged(100_000, 10_000);
  expect(bytes.length).toBeLessThan(100_000);
  const t0 = performance.now();
  expect(await reason(convert(bytes, PPTX)))
    .toBe("the PPTX's slides hold more than 200 MiB of text (slides listed many times over, or table rows padded to the widest), over the limit");
  expect(performance.now() - t0).toBeLessThan(10_000);
});

test("a table under the limit converts", async () => {
  const md = (await convert(await ragged(10, 100), PPTX, { maxUncompressedBytes: 2 ** 20 })).markdown;
  expect(md.split("\n").filter((l) => l.startsWith("| c |")).length).toBe(101);
});
