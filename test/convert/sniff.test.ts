import { expect, test } from "bun:test";
import { ACCEPTED_FORMATS, DOCX, PPTX, XLSX, isAccepted } from "../../src/ingest/formats.ts";
import { sniff } from "../../src/ingest/sniff.ts";
import { docx, textPdf, utf8, zipOf } from "./fixtures.ts";
import { xlsx } from "./xlsx-fixture.ts";

test("genuine files pass", async () => {
  expect(sniff(await textPdf(1), "application/pdf")).toBeNull();
  expect(sniff(await docx(), DOCX)).toBeNull();
  expect(sniff(await xlsx(), XLSX)).toBeNull();
  expect(sniff(utf8("héllo, wörld"), "text/plain; charset=utf-8")).toBeNull();
  expect(sniff(utf8("<p>x</p>"), "TEXT/HTML")).toBeNull();
});

test("a PDF declaration over text bytes is caught", () => {
  expect(sniff(utf8("just some text"), "application/pdf")).toBe("the file is not a PDF (no %PDF- header)");
});

test("text with NUL bytes or invalid UTF-8 is caught", () => {
  expect(sniff(new Uint8Array([0x61, 0, 0x62]), "text/plain")).toBe("the file contains NUL bytes, so it is not text");
  expect(sniff(new Uint8Array([0x61, 0xc3, 0x28]), "text/csv")).toBe("the file is not valid UTF-8 text");
});

test("a random zip declared as DOCX is caught, and so is a DOCX declared as XLSX", async () => {
  expect(sniff(await zipOf({ "hello.txt": "hi" }), DOCX)).toBe(
    "the zip has no [Content_Types].xml, so it is not an Office document",
  );
  expect(sniff(await docx(), XLSX)).toBe("the zip has no xl/ parts");
  const noMain = await zipOf({ "[Content_Types].xml": "<Types/>", "word/document.xml": "<x/>" });
  expect(sniff(noMain, DOCX)).toBe(
    "the Office document does not declare the expected main part (wordprocessingml.document.main+xml)",
  );
  expect(sniff(utf8("PK but not really"), DOCX)).toBe("the file is not a zip-based Office document (no zip signature)");
});

test("an empty PDF or Office file is said to be empty, not to lack a header or zip signature", () => {
  for (const type of ["application/pdf", DOCX, XLSX, PPTX]) expect({ type, reason: sniff(new Uint8Array(0), type) }).toEqual({ type, reason: "the file is empty" });
});

test("unsupported types get a reason", () => {
  expect(sniff(utf8("x"), "image/png")).toBe("content type image/png is not supported");
});

test("isAccepted compares media types only, ignoring parameters and case", () => {
  expect(isAccepted("text/plain; charset=utf-8")).toBe(true);
  expect(isAccepted("Application/PDF")).toBe(true);
  expect(isAccepted("image/png")).toBe(false);
  expect(isAccepted("")).toBe(false);
  expect(ACCEPTED_FORMATS.map((f) => f.contentType)).toEqual([
    "application/pdf", DOCX, XLSX, PPTX, "text/html", "text/markdown", "text/plain", "text/csv", "application/json",
  ]);
  expect(ACCEPTED_FORMATS.filter((f) => f.paged).map((f) => f.contentType)).toEqual(["application/pdf"]);
});
