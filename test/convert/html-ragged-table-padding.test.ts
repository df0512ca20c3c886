import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import { docx, utf8 } from "./fixtures.ts";

// An HTML table (and a DOCX one, which arrives as mammoth's HTML) pads every row to its widest: a row of
// 100,000 cells over 10,000 one-cell rows is about 1 MB of HTML and 3 GB of markdown table. Its size is
// now counted before it is built, against the uncompressed-size limit.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));
const REFUSED = "the document's tables would hold more than 200 MiB of text (each table row padded to the widest row of its table), over the limit";

test("an HTML table with one wide row over many short ones is refused before it is built", async () => {
  const html = "<table><tr>" + "<td>c</td>".repeat(100_000) + "</tr>" + "<tr><td>c</td></tr>".repeat(10_000) + "</table>";
  const t0 = performance.now();
  expect(await reason(convert(utf8(html), "text/html"))).toBe(REFUSED);
  expect(performance.now() - t0).toBeLessThan(10_000);
});

test("the same in a DOCX", async () => {
  const tc = "<w:tc><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc>";
  const body = `<w:tbl><w:tr>${tc.repeat(30_000)}</w:tr>${`<w:tr>${tc}</w:tr>`.repeat(3_000)}</w:tbl>`;
  const bytes = await docx({ "word/document.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>${body}</w:body></w:document>` });
  expect(await reason(convert(bytes, DOCX, { maxUncompressedBytes: 100 * 2 ** 20 })))
    .toBe(REFUSED.replace("200 MiB", "100 MiB"));
});

test("ordinary tables convert", async () => {
  const md = (await convert(utf8("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td></tr></table>"), "text/html")).markdown;
  expect(md).toContain("| a | b |");
  expect(md).toContain("| 1 |  |");
});
