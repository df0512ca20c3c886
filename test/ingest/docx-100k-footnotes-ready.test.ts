import { expect, test } from "bun:test";
import { docxServer } from "./docx-over-http.ts";
import { zipOf } from "../convert/fixtures.ts";
import { notedDocxParts } from "./long-docx.ts";

// A long DOCX is converted in slices of its body, but mammoth reads all the footnotes with each
// slice: with a note per paragraph, 100,000 paragraphs made each slice hold 11 MB of notes (1.4
// GiB at the peak) and the document ended FAILED at the 1 GiB memory limit. Each slice now gets
// only the notes it refers to, and the notes part counts towards the length that is sliced.

const converted = docxServer();

test("a DOCX of 100,000 paragraphs with a footnote each ends READY, every note numbered and listed once", async () => {
  const n = 100_000;
  const md = await converted("noted.docx", await zipOf(notedDocxParts(n)), 240_000);
  expect(md.startsWith("Paragraph 1 of the annotated document.[1]\n\n")).toBe(true);
  expect(md).toContain(`\n\nParagraph ${n} of the annotated document.[${n}]\n\n1. Footnote 1 explains paragraph 1. ↑\n2. Footnote 2`);
  expect(md.endsWith(`\n${n}. Footnote ${n} explains paragraph ${n}. ↑\n`)).toBe(true);
  expect(md.split("Footnote 50000 explains").length).toBe(2);
}, 300_000);
