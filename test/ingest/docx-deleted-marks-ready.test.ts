import { expect, test } from "bun:test";
import { docxServer } from "./docx-over-http.ts";
import { longDocxParts } from "./long-docx.ts";
import { zipOf } from "../convert/fixtures.ts";

// A long DOCX with tracked changes: paragraphs whose mark is deleted (Word joins them to the next
// paragraph, and so does mammoth), each followed by a bookmark. Converted in slices, a cut fell
// after a bookmark, and the deleted-mark paragraph before it lost its text: READY, words missing.

const MAIN = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const N = 12_000;

const converted = docxServer();

test("a long DOCX of deleted paragraph marks and bookmarks ends READY with every word", async () => {
  const body: string[] = [];
  for (let i = 1; i <= N; i++) {
    body.push(`<w:p><w:pPr><w:rPr><w:del w:id="${i}" w:author="a" w:date="2026-01-01T00:00:00Z"/></w:rPr></w:pPr><w:r><w:t>Held ${i} </w:t></w:r></w:p>`);
    body.push(`<w:bookmarkStart w:id="${i}" w:name="b${i}"/><w:bookmarkEnd w:id="${i}"/>`);
    body.push(`<w:p><w:r><w:t>taken by paragraph ${i}.</w:t></w:r></w:p>`);
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${MAIN}"><w:body>${body.join("\n")}<w:sectPr/></w:body></w:document>`;
  expect(xml.length).toBeGreaterThan(1024 * 1024);
  const bytes = await zipOf({ ...longDocxParts(1), "word/document.xml": xml });
  const md = await converted("tracked.docx", bytes, 120_000);
  const missing = Array.from({ length: N }, (_, i) => i + 1).filter((i) => !md.includes(`Held ${i} taken by paragraph ${i}.`));
  expect(missing).toEqual([]);
}, 180_000);
