// A document's summary chunk restates its sentences and rows, without a page. When both copies
// are retrieved, the answer quotes the fact once, from the passage that places it on a page.
import { describe, expect, test } from "bun:test";
import { extractiveAnswer } from "../../src/models/builtin-answer.ts";
import type { Passage } from "../../src/models/types.ts";

const answer = (question: string, passages: Passage[]) =>
  extractiveAnswer({ question, lang: "es", system: "", history: [], passages });

const FACT = "Los empleados en España tienen derecho a 23 días laborables de vacaciones al año.";
const SUMMARY = `## Resumen\n\n- Política de vacaciones en España\n- ${FACT}`;
const PAGES = `Política de vacaciones en España\n\n${FACT} Las vacaciones se solicitan con un mes de antelación.\n\nDías festivos\n\nLa empresa cierra el 24 y el 31 de diciembre.`;

describe("a statement held by the summary chunk and by a paged chunk", () => {
  test("is cited from the paged chunk, even when the summary ranks first", () => {
    const r = answer("¿Cuántos días de vacaciones tienen los empleados en España?", [
      { ref: 1, text: SUMMARY, pages: [] },
      { ref: 2, text: PAGES, pages: [1, 2] },
    ]);
    expect(r.answered).toBe(true);
    expect(r.text).toContain(FACT);
    expect(r.text.split(FACT).length - 1).toBe(1);
    expect(r.cited).toEqual([2]);
  });

  test("a table row and the summary's record line of it are quoted once", () => {
    const summary = "## Summary\n\n- City: Berlin; Address: Friedrichstrasse 10; Phone: +49 30 1234567\n- City: Munich; Address: Leopoldstrasse 55; Phone: +49 89 7654321";
    const table = "| City | Address | Phone |\n| --- | --- | --- |\n| Berlin | Friedrichstrasse 10 | +49 30 1234567 |\n| Munich | Leopoldstrasse 55 | +49 89 7654321 |";
    const r = extractiveAnswer({ question: "What is the phone number of the Munich office?", lang: "en", system: "", history: [], passages: [
      { ref: 1, text: summary, pages: [] }, { ref: 2, text: table, pages: [] },
    ] });
    expect(r.text.split("+49 89 7654321").length - 1).toBe(1);
    expect(r.cited.length).toBe(1);
  });
});

describe("the summary's record lines of a table", () => {
  test("only the line of the row asked about is quoted, not those its field names match", () => {
    // The summary and table of an office list, as ingestion stores them, among other passages.
    const summary = "## Summary\n\n- City: Berlin; Address: Friedrichstrasse 10; Phone: +49 30 1234567; Opening hours: 08:00-18:00\n- City: Munich; Address: Leopoldstrasse 55; Phone: +49 89 7654321; Opening hours: 09:00-17:00\n- City: Lyon; Address: 12 Rue de la Republique; Phone: +33 4 72 00 00 00; Opening hours: 09:00-17:30";
    const table = "| City | Address | Phone | Opening hours |\n| --- | --- | --- | --- |\n| Berlin | Friedrichstrasse 10 | +49 30 1234567 | 08:00-18:00 |\n| Munich | Leopoldstrasse 55 | +49 89 7654321 | 09:00-17:00 |\n| Lyon | 12 Rue de la Republique | +33 4 72 00 00 00 | 09:00-17:30 |";
    const other = "Every employee receives a laptop and a headset. The home office allowance is 50 euros per month.";
    const r = extractiveAnswer({ question: "What are the opening hours of the Lyon office?", lang: "en", system: "", history: [], passages: [
      { ref: 1, text: summary, pages: [] }, { ref: 2, text: table, pages: [] }, { ref: 3, text: other, pages: [1] },
    ] });
    expect(r.answered).toBe(true);
    for (const q of r.text.split(/\s*\[\d+\]\s*/).filter(Boolean)) expect(q).toContain("Lyon");
  });
});
