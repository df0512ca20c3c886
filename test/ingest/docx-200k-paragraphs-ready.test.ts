import { expect, test } from "bun:test";
import { docxServer } from "./docx-over-http.ts";
import { LONG_DOCX, longDocx } from "./long-docx.ts";

// mammoth builds the whole document before writing any of it: 200,000 short paragraphs (a few
// thousand pages, 0.6 MB zipped) took about 1.9 GiB, so the document ended FAILED at the worker's
// 1 GiB memory limit. Its body is now converted in slices, with the same markdown as a conversion
// of the whole: the list crossing a slice keeps counting, and the footnotes keep their numbers and
// are listed once, at the end.

const converted = docxServer();

test("a DOCX of 200,000 paragraphs ends READY, its markdown whole from the first paragraph to the notes", async () => {
  const n = 200_000;
  const md = await converted("long.docx", await longDocx(n), 240_000);
  expect(md.startsWith(`# Part 1\n\n${LONG_DOCX.first}\n\n`)).toBe(true);
  expect(md).toContain(`\n\n${LONG_DOCX.last(n)}\n\n`);
  expect(md).toContain("\n\n# Part 10\n\n");
  expect(md).toContain(`\n1. List item 1\n2. List item 2\n`);
  expect(md).toContain(`\n${LONG_DOCX.listItems}. List item ${LONG_DOCX.listItems}\n\n`);
  expect(md).toContain("Paragraph 10 of the long document.[1]\n");
  expect(md).toContain(`Paragraph ${n - 10} of the long document.[2]\n`);
  expect(md.endsWith("\n\n1. A note near the start. ↑\n2. A note near the end. ↑\n")).toBe(true);
  expect(md.split("A note near the end.").length).toBe(2);
}, 300_000);
