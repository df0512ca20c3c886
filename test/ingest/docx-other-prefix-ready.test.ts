import { expect, test } from "bun:test";
import { docxServer } from "./docx-over-http.ts";
import { longDocxParts } from "./long-docx.ts";
import { zipOf } from "../convert/fixtures.ts";

// A DOCX over the slicing threshold whose root also binds the main namespace to "x:", with a
// footnote referenced as x:footnoteReference far into the body: the slicer did not see the
// reference, the slice went to mammoth without its note, and the document ended FAILED ("the file
// is damaged") although mammoth reads the whole file fine. It is now converted whole.

const MAIN = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

const converted = docxServer();

test("a long DOCX naming the main namespace with a second prefix ends READY with its note", async () => {
  const paras: string[] = [];
  for (let i = 1; i <= 30_000; i++) {
    paras.push(`<w:p><w:r><w:t>Paragraph ${i} of the prefixed document.</w:t></w:r>${i === 29_000 ? `<x:r><x:footnoteReference x:id="2"/></x:r>` : ""}</w:p>`);
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${MAIN}" xmlns:x="${MAIN}"><w:body>${paras.join("\n")}<w:sectPr/></w:body></w:document>`;
  expect(xml.length).toBeGreaterThan(1024 * 1024);
  const bytes = await zipOf({ ...longDocxParts(1), "word/document.xml": xml });
  const md = await converted("prefixed.docx", bytes, 120_000);
  expect(md).toContain("Paragraph 29000 of the prefixed document.[1]");
  expect(md.endsWith("1. A note near the end. ↑\n")).toBe(true);
}, 180_000);
