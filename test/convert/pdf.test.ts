import { expect, test } from "bun:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { ConversionError, convert, PAGE_MARKER_RE, pageMarker } from "../../src/ingest/convert/index.ts";
import { imageOnlyPdf, textPdf, utf8 } from "./fixtures.ts";

test("page markers have the contract shape", () => {
  expect(pageMarker(3)).toBe("<!-- page 3 -->");
  expect(PAGE_MARKER_RE.exec("<!-- page 12 -->")?.[1]).toBe("12");
  expect(PAGE_MARKER_RE.test("x <!-- page 1 -->")).toBe(false);
});

test("multi-page PDF gets page markers, headings from font size and body lines", async () => {
  const out = await convert(await textPdf(3, 2), "application/pdf");
  expect(out.nbPages).toBe(3);
  const body = (p: number) =>
    `# Chapter ${p}\n\nBody line 1 of page ${p} with some ordinary words.\nBody line 2 of page ${p} with some ordinary words.`;
  expect(out.markdown).toBe(
    [1, 2, 3].map((p) => `<!-- page ${p} -->\n\n${body(p)}`).join("\n\n") + "\n",
  );
  const markers = out.markdown.split("\n").filter((l) => PAGE_MARKER_RE.test(l));
  expect(markers).toEqual(["<!-- page 1 -->", "<!-- page 2 -->", "<!-- page 3 -->"]);
});

test("two heading sizes become # and ##, separated paragraphs stay apart", async () => {
  const doc = await PDFDocument.create();
  const f = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  page.drawText("Title", { x: 50, y: 800, size: 28, font: f });
  page.drawText("Section", { x: 50, y: 760, size: 16, font: f });
  page.drawText("First paragraph line.", { x: 50, y: 730, size: 10, font: f });
  page.drawText("Second paragraph after a gap.", { x: 50, y: 690, size: 10, font: f });
  page.drawText("• bullet item", { x: 50, y: 670, size: 10, font: f });
  const out = await convert(await doc.save(), "application/pdf");
  expect(out.markdown).toBe(
    "<!-- page 1 -->\n\n# Title\n\n## Section\n\nFirst paragraph line.\n\nSecond paragraph after a gap.\n\n- bullet item\n",
  );
});

test("an empty page keeps its marker so page numbers stay aligned", async () => {
  const doc = await PDFDocument.create();
  const f = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([300, 300]).drawText("one", { x: 10, y: 200, size: 12, font: f });
  doc.addPage([300, 300]);
  doc.addPage([300, 300]).drawText("three", { x: 10, y: 200, size: 12, font: f });
  const out = await convert(await doc.save(), "application/pdf");
  expect(out).toEqual({ markdown: "<!-- page 1 -->\n\none\n\n<!-- page 2 -->\n\n<!-- page 3 -->\n\nthree\n", nbPages: 3 });
});

test("text that looks like a page marker cannot forge a page", async () => {
  const doc = await PDFDocument.create();
  const f = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([400, 300]).drawText("<!-- page 9 -->", { x: 10, y: 200, size: 12, font: f });
  const out = await convert(await doc.save(), "application/pdf");
  expect(out.markdown.split("\n").filter((l) => PAGE_MARKER_RE.test(l))).toEqual(["<!-- page 1 -->"]);
});

test("a PDF without a text layer fails with a clear reason", async () => {
  const err = await convert(await imageOnlyPdf(), "application/pdf").catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toContain("no text layer");
  expect(err.message).toContain("OCR is not available offline");
});

test("a corrupt PDF is a ConversionError, not a crash", async () => {
  const err = await convert(utf8("%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage"), "application/pdf").catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toStartWith("could not read PDF: ");
});

test("the caller's bytes are still usable after conversion", async () => {
  const bytes = await textPdf(1);
  await convert(bytes, "application/pdf");
  expect((await convert(bytes, "application/pdf")).nbPages).toBe(1);
});
