import { expect, test } from "bun:test";
import { listStyleIds, NotesPart, planSlices } from "../../src/ingest/convert/docx-slices.ts";

// The slice planner scans document.xml (and the numbering, styles and notes parts) with regular
// expressions before mammoth has parsed it, so it meets malformed XML first. None of its patterns
// may reach past the next "<" or, unterminated, be retried from every later "<": each case is a
// MB or two of unclosed markup and must take well under a second (the bound allows for a loaded
// machine). A body that is not well-formed is left to mammoth whole.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const doc = (body: string) => `<?xml version="1.0"?><w:document ${W}><w:body>${body}</w:body></w:document>`;
const para = "<w:p><w:r><w:t>x</w:t></w:r></w:p>";
/** List items cannot be cut before, so the paragraph after them is the first one the planner weighs. */
const items = '<w:p><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>x</w:t></w:r></w:p>'.repeat(100);
const n = 300_000;

const timed = <T>(run: () => T): { ms: number; value: T } => {
  const t0 = performance.now();
  const value = run();
  return { ms: performance.now() - t0, value };
};

test("an unclosed attribute quote or comment: scanned once, not cut", () => {
  for (const xml of [doc(`<w:p a="${"<b ".repeat(n)}`), doc(`${para}<!--${"<!--".repeat(n)}`)]) {
    const { ms, value } = timed(() => planSlices(xml, 1000, new Set()));
    expect(value).toBeNull();
    expect(ms).toBeLessThan(5_000);
  }
});

test("runs, texts and styles that never close inside one paragraph: scanned once", () => {
  for (const inside of ["<w:r ".repeat(n), `<w:r>${"<w:t ".repeat(n)}</w:r>`, "<w:pStyle ".repeat(n)]) {
    const xml = doc(`${items}<w:p>${inside}</w:p>${para}`);
    const { ms, value } = timed(() => planSlices(xml, 1000, new Set(), Infinity));
    expect(value?.slices.length).toBe(2);
    expect(ms).toBeLessThan(5_000);
  }
});

test("numbering, styles and notes parts of unclosed tags: scanned once", () => {
  const { ms } = timed(() => {
    listStyleIds("<w:pStyle ".repeat(n), "<w:style ".repeat(n));
    NotesPart.of(`<w:footnotes ${W}>${"<w:footnote ".repeat(n)}`);
  });
  expect(ms).toBeLessThan(5_000);
});
