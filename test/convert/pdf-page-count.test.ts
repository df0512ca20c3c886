import { expect, test } from "bun:test";
import { ConversionError } from "../../src/ingest/convert/errors.ts";
import { pdfToMarkdown } from "../../src/ingest/convert/pdf.ts";
import { pdfDeclaringPageCount } from "./pdf-page-count-fixture.ts";

// /Count -5 reached mapWindowed as numPages -5 and threw a RangeError (new Array(-5)), which the worker
// then reported as a crash, three times over.

test("a negative page count is a conversion error naming the page count", async () => {
  const err = await pdfToMarkdown(pdfDeclaringPageCount("-5")).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toBe("could not read PDF: its page tree declares an invalid page count (-5)");
});

test("a page tree of no pages says so", async () => {
  const err = await pdfToMarkdown(pdfDeclaringPageCount("0")).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toBe("the PDF has no pages");
});

test("an overstated page count still reads the real page", async () => {
  const r = await pdfToMarkdown(pdfDeclaringPageCount("10000000"));
  expect(r.nbPages).toBe(1);
  expect(r.markdown).toContain("Hello declared page count");
});
