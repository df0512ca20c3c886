// The built-in answerer quotes facts written as short lines (bullets, slide lines, table rows)
// while still keeping headings out of its answers. Passages are written as the chunker stores
// them: plain blocks, markdown markers already gone, so a title and a bullet look alike.
import { describe, expect, test } from "bun:test";
import { extractiveAnswer } from "../../src/models/builtin-answer.ts";

const answer = (question: string, ...texts: string[]) =>
  extractiveAnswer({ question, lang: "en", system: "", history: [], passages: texts.map((text, i) => ({ ref: i + 1, text })) });

// The office guide of the report, as the chunker stores it (title, paragraph, title, two items).
const OFFICE =
  "Office guide\n\nWelcome to the office. Please read this guide carefully before your first day.\n\n" +
  "Fees\n\nParking fee is 12 euros per month\n\nLocker deposit is 20 euros";

describe("short lines that hold facts are quoted", () => {
  test("a bullet beside a real sentence answers (it was 'not found' while any sentence was there)", () => {
    const r = answer("How much is the parking fee?", OFFICE);
    expect([r.text, r.cited, r.answered]).toEqual(["Parking fee is 12 euros per month [1]", [1], true]);
    expect(answer("How much is the locker deposit?", OFFICE).text).toEqual("Locker deposit is 20 euros [1]");
  });

  test("the same document as raw markdown: list markers are dropped from the quote", () => {
    const md = "# Office guide\n\nWelcome to the office. Please read this guide carefully before your first day.\n\n" +
      "## Fees\n\n- Parking fee is 12 euros per month\n+ Locker deposit is 20 euros\n1. Bike rack is free";
    expect(answer("How much is the parking fee?", md).text).toEqual("Parking fee is 12 euros per month [1]");
    expect(answer("How much is the locker deposit?", md).text).toEqual("Locker deposit is 20 euros [1]");
    expect(answer("Is the bike rack free?", md).text).toEqual("Bike rack is free [1]");
  });

  test("a line that only restates a yes/no question still answers it when nothing else does", () => {
    // "Bike rack is free" has no word the question lacks, as a heading repeating the question has not.
    const text = "Parking\n\nPlease park only in the marked bays.\n\nBike rack is free\n\nParking fee is 12 euros per month";
    expect(answer("Is the bike rack free?", text).text).toEqual("Bike rack is free [1]");
  });

  test("a slide line answers when another passage holds prose", () => {
    const slide = "Q3 update\n\nQuarterly narwhal sales rose 17 percent";
    const prose = "Employees get 25 days of paid leave per year. The office opens at nine in the morning.";
    const r = answer("How much did quarterly narwhal sales rise?", prose, slide);
    expect([r.text, r.cited]).toEqual(["Quarterly narwhal sales rose 17 percent [2]", [2]]);
  });

  test("two quoted lines of one passage keep a marker each instead of running into each other", () => {
    const r = answer("What are the parking fee and the locker deposit?", OFFICE);
    expect(r.text).toEqual("Parking fee is 12 euros per month [1] Locker deposit is 20 euros [1]");
  });

  test("a table row answers, matched with its header, quoted without the outer pipes", () => {
    const table = "| Item | Price |\n| --- | --- |\n| Coffee | 2 euros |\n| Tea | 1 euro |";
    // "price" is only in the header: the row alone covers half of the question's terms.
    expect(answer("What is the price of coffee?", table).text).toEqual("Coffee | 2 euros [1]");
    expect(answer("What is the price of tea?", "Drinks are served all day in the lobby.", table).text).toEqual("Tea | 1 euro [2]");
    // The header row alone answers nothing.
    expect(answer("Which item has which price?", table).text).not.toContain("Item | Price");
  });
});

describe("headings still stay out", () => {
  test("a heading that only repeats the question is not the answer", () => {
    // "Leave policy" covers all of the question; the sentence under it is the answer.
    const r = answer("What is the leave policy?", "Leave policy\n\nEmployees get 25 days of paid leave per year.");
    expect(r.text).toEqual("Employees get 25 days of paid leave per year. [1]");
  });

  test("a markdown heading line is not quoted while a sentence is there", () => {
    const r = answer("What is the leave policy?", "## Leave policy\n\nEmployees get 25 days of paid leave per year.");
    expect(r.text).toEqual("Employees get 25 days of paid leave per year. [1]");
  });

  test("a short line heading a paragraph yields to a sentence under it that matches as well", () => {
    // Both hold "parking" and "rules"; the line over the paragraph is taken for its heading.
    const text = "Parking rules for visitors\n\nVisitors follow the parking rules posted at the gate.";
    expect(answer("What are the parking rules?", text).text).toEqual("Visitors follow the parking rules posted at the gate. [1]");
  });

  test("the summary chunk's heading is not quoted, its bullets are", () => {
    const summary = "## Summary\n\n- Parking fee is 12 euros per month\n- Locker deposit is 20 euros";
    expect(answer("How much is the parking fee?", summary).text).toEqual("Parking fee is 12 euros per month [1]");
  });
});
