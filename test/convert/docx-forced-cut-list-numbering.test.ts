import { expect, test } from "bun:test";
import { docxToMarkdown } from "../../src/ingest/convert/docx.ts";
import { docxParts, zipOf } from "./fixtures.ts";
import { DOCX_LIMITS as LIMITS, LIST_NUMBERING as NUMBERING } from "./docx-list-numbering.ts";

// A list longer than a slice's hard limit is cut anyway (docx-slices.ts, planSlices). Each slice
// is converted on its own, so the list after the cut started again at 1: "step 14" became "1.",
// and a citation quoting the markdown named the wrong step. Converted with a cut forced before
// every element (sliceChars 1, maxSliceChars 1), lists must come out as a conversion of the whole.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const para = (text: string, pPr = "") => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}<w:r><w:t>${text}</w:t></w:r></w:p>`;
const item = (text: string, numId: number, ilvl = 0) => para(text, `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);
const documentXml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}<w:sectPr/></w:body></w:document>`;
const docxOf = (body: string) => zipOf(docxParts({ "word/numbering.xml": NUMBERING, "word/document.xml": documentXml(body) }));

test("a numbered list cut before every step keeps counting: step 14 is 14.", async () => {
  const steps = Array.from({ length: 20 }, (_, i) => item(`Step ${i + 1}`, 3)).join("");
  const bytes = await docxOf(para("Procedure") + steps + para("Done."));
  const whole = await docxToMarkdown(bytes, LIMITS);
  expect(whole).toContain("\n14. Step 14\n");
  const cut = await docxToMarkdown(bytes, LIMITS, 1, 1);
  expect(cut).toContain("\n14. Step 14\n");
  expect(cut).toBe(whole);
});

test("nested lists of both kinds cut before a deeper, a shallower and a same-level item come out as whole", async () => {
  const body = para("Intro") + item("a", 1) + item("a.i", 1, 1) + item("a.ii", 1, 1) + item("a.ii.x", 1, 2) + item("b", 1) +
    item("c", 1) + item("c.i", 1, 1) + para("") + item("c.ii", 1, 1) + item("d", 1) + para("Between.") +
    item("bullet", 2) + item("bullet.1", 2, 1) + item("bullet.2", 2, 1) + item("numbered after bullets", 1) + item("again", 1);
  const bytes = await docxOf(body);
  const whole = await docxToMarkdown(bytes, LIMITS);
  expect(await docxToMarkdown(bytes, LIMITS, 1, 1)).toBe(whole);
});

test("a list whose first cut item is deeper than the next ones (an outline resumed at level 1) counts on", async () => {
  const body = item("one", 3) + item("one.one", 3, 1) + item("one.one.one", 3, 2) + item("two", 3) + item("three", 3) +
    item("three.one", 1, 1) + item("four", 1) + item("five", 3);
  const bytes = await docxOf(body);
  const whole = await docxToMarkdown(bytes, LIMITS);
  expect(await docxToMarkdown(bytes, LIMITS, 1, 1)).toBe(whole);
});

test("random lists cut before every element or every few: the same markdown as the whole", async () => {
  let seed = 20261128;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
  for (let k = 0; k < 24; k++) {
    let n = 0;
    const blocks = Array.from({ length: 5 + rnd(30) }, () => {
      const r = rnd(10);
      if (r === 0) return para(`p${n++}`);
      if (r === 1) return "<w:p></w:p>";
      return item(`i${n++}`, 1 + rnd(3), rnd(3));
    });
    const bytes = await docxOf(blocks.join(""));
    const whole = await docxToMarkdown(bytes, LIMITS);
    // a cut before every element, or forced every few elements (slices of several paragraphs)
    const cut = await docxToMarkdown(bytes, LIMITS, k % 2 ? 1 : 400, k % 2 ? 1 : 400);
    if (cut !== whole) throw new Error(`document ${k} differs:\n${blocks.join("\n")}\n--- whole\n${whole}\n--- cut\n${cut}`);
  }
}, 120_000);
