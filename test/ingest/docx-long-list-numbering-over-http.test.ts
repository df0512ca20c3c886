import { expect, test } from "bun:test";
import { docxParts, zipOf } from "../convert/fixtures.ts";
import { docxServer } from "./docx-over-http.ts";

// A numbered list longer than a slice may grow (4 Mi characters of document.xml) has no place the
// cutter may choose, so it is cut anyway. Each slice was converted on its own and the list started
// again at 1 after each cut: step 30,000 came out as "5691." in the markdown the chunks and citations
// are taken from.

const converted = docxServer();
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const STEPS = 60_000;
const step = (i: number) =>
  `<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="2"/></w:numPr></w:pPr>` +
  `<w:r><w:t>Step ${i} of the long procedure.</w:t></w:r></w:p>`;

test("a numbered list of 60,000 steps cut by the slice limit keeps counting across the cuts", async () => {
  const body = Array.from({ length: STEPS }, (_, i) => step(i + 1)).join("\n");
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>` +
    `<w:p><w:r><w:t>The procedure.</w:t></w:r></w:p>\n${body}\n<w:p><w:r><w:t>The end.</w:t></w:r></w:p><w:sectPr/></w:body></w:document>`;
  // past two slice limits: the list is cut at least twice
  expect(xml.length).toBeGreaterThan(8 * 1024 * 1024);
  const md = await converted("procedure.docx", await zipOf(docxParts({ "word/document.xml": xml })), 240_000);
  expect(md.startsWith("The procedure.\n\n1. Step 1 of the long procedure.\n2. Step 2 of the long procedure.\n")).toBe(true);
  // the lines themselves, so that a failure shows a line and not 2 MB of markdown
  const line = (i: number) => new RegExp(`^.*Step ${i} of the.*$`, "m").exec(md)?.[0];
  for (const i of [14, 30_000, 45_000, STEPS]) expect(line(i)).toBe(`${i}. Step ${i} of the long procedure.`);
  expect(md.match(/^1\. /gm)?.length).toBe(1);
  const end = `\n${STEPS - 1}. Step ${STEPS - 1} of the long procedure.\n${STEPS}. Step ${STEPS} of the long procedure.\n\nThe end.\n`;
  expect(md.slice(-end.length)).toBe(end);
}, 300_000);
