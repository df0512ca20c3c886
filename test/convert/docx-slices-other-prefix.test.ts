import { expect, test } from "bun:test";
import { docxToMarkdown } from "../../src/ingest/convert/docx.ts";
import { longDocxParts } from "../ingest/long-docx.ts";
import { zipOf } from "./fixtures.ts";

// XML lets a file name WordprocessingML with any prefix, and mammoth reads it so; the slicer
// looks for "w:" names only (a note's reference, a list style, a deleted mark). A root that binds
// the main namespace to w: and also to another prefix was cut anyway: a slice then lacked the
// note its x:footnoteReference named (mammoth failed on the file), or a list was split.

const LIMITS = { maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 10_000 };
const MAIN = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const p = (text: string, tail = "") => `<w:p><w:r><w:t>${text}</w:t></w:r>${tail}</w:p>`;
const doc = (body: string, rootNs = `xmlns:x="${MAIN}"`) =>
  `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${MAIN}" ${rootNs}><w:body>${body}<w:sectPr/></w:body></w:document>`;
const paras = (n: number, tail: (i: number) => string = () => "") => Array.from({ length: n }, (_, i) => p(`Paragraph ${i}.`, tail(i))).join("");

const sameWholeAndSliced = async (xml: string) => {
  const bytes = await zipOf({ ...longDocxParts(1), "word/document.xml": xml });
  const whole = await docxToMarkdown(bytes, LIMITS);
  expect(await docxToMarkdown(bytes, LIMITS, 1, Infinity)).toBe(whole);
  return whole;
};

test("a note referenced with another prefix for the main namespace is in the sliced markdown", async () => {
  const md = await sameWholeAndSliced(doc(paras(20, (i) => (i === 15 ? `<x:r><x:footnoteReference x:id="1"/></x:r>` : ""))));
  expect(md).toContain("A note near the start.");
});

const NUMBERING = `<?xml version="1.0"?><w:numbering xmlns:w="${MAIN}"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0">` +
  `<w:numFmt w:val="decimal"/><w:pStyle w:val="Numbered"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`;

test("a list named by a style under another prefix is not split", async () => {
  const item = (i: number) => `<w:p><w:pPr><x:pStyle x:val="Numbered"/></w:pPr><w:r><w:t>item ${i}</w:t></w:r></w:p>`;
  const xml = doc(p("Intro.") + Array.from({ length: 12 }, (_, i) => item(i)).join(""));
  const bytes = await zipOf({ ...longDocxParts(1), "word/numbering.xml": NUMBERING, "word/document.xml": xml });
  const whole = await docxToMarkdown(bytes, LIMITS);
  expect(whole).toContain("12. item 11");
  expect(await docxToMarkdown(bytes, LIMITS, 1, Infinity)).toBe(whole);
});

test("the main namespace as the default namespace of an inner element is not cut through either", async () => {
  await sameWholeAndSliced(doc(paras(10) + `<p xmlns="${MAIN}" xmlns:y="${MAIN}"><r><footnoteReference y:id="1"/></r></p>` + paras(10), ""));
});
