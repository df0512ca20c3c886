// A CSV or XLSX document is converted to markdown tables only, and stripMarkdown drops tables, so
// the summary was the bare heading ("## Summary\n"), or for a big sheet cut at the summary input
// "- Data" (the sheet's name) and "- | 7" (the remains of the cut row). Such a document is now
// summarised by its first rows, "Header: value; …", empty cells left out.
import { describe, expect, test } from "bun:test";
import { BULLET_CHARS, SUMMARY_CHARS, extractiveSummary } from "../../src/models/builtin-summary.ts";
import { convert } from "../../src/ingest/convert/index.ts";
import { csvToMarkdown } from "../../src/ingest/convert/csv.ts";
import { XLSX } from "../../src/ingest/formats.ts";
import { SUMMARY_INPUT_CHARS } from "../../src/ingest/enrich.ts";
import { xlsx } from "../convert/xlsx-fixture.ts";

const csv = (text: string) => csvToMarkdown(new TextEncoder().encode(text));
const summary = (md: string) => extractiveSummary(md, "en").text;
const bullets = (s: string) => s.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2));

describe("a document of tables is summarised by its first rows", () => {
  test("a CSV: one bullet per row, header before each value, empty cells left out", () => {
    expect(summary(csv("name,city,age\nAlice,Paris,30\nBob,,41\n"))).toEqual(
      "## Summary\n\n- name: Alice; city: Paris; age: 30\n- name: Bob; age: 41\n",
    );
  });

  test("an XLSX: the sheet name is not a bullet, escaped bars in cells read as plain bars", async () => {
    const { markdown } = await convert(await xlsx(), XLSX);
    // The fixture's cell "North & |West|" is written "North & \|West\|" in the table.
    expect(markdown).toContain("| North & \\|West\\| | 12.5 | TRUE |");
    expect(summary(markdown)).toEqual("## Summary\n\n- Region: North & |West|; Amount: 12.5; Ok: TRUE\n- Amount: 7\n");
  });

  test("a row under an empty header cell gives its value alone; a row of empty cells gives nothing", () => {
    expect(summary(csv(",price\nTea,3\n,\nCoffee,\n"))).toEqual("## Summary\n\n- Tea; price: 3\n- Coffee\n");
  });

  test("at most seven rows, however long the table", () => {
    const rows = Array.from({ length: 50 }, (_, i) => `item ${i},${i * 10}`).join("\n");
    expect(bullets(summary(csv(`item,price\n${rows}\n`)))).toEqual(Array.from({ length: 7 }, (_, i) => `item: item ${i}; price: ${i * 10}`));
  });

  // Seven bullets of 300 characters make 2,133 characters with the heading: the seventh is left out.
  test("long rows are cut at BULLET_CHARS with an ellipsis, and the whole summary stays within SUMMARY_CHARS", () => {
    const long = "word ".repeat(100).trim();
    const rows = Array.from({ length: 10 }, (_, i) => `${i},${long}`).join("\n");
    const s = summary(csv(`n,text\n${rows}\n`));
    expect(s.length).toBeLessThanOrEqual(SUMMARY_CHARS);
    const bs = bullets(s);
    expect(bs.length).toBe(6);
    for (const [i, b] of bs.entries()) {
      expect(b.length).toBeLessThanOrEqual(BULLET_CHARS);
      expect(b.endsWith("…")).toBe(true);
      expect(b.startsWith(`n: ${i}; text: word word`)).toBe(true);
    }
  });

  test("a sheet cut in the middle of a row at the summary input: its first rows, no '| 7' left", () => {
    const md = "## Sales Q1\n\n| a | b |\n| --- | --- |\n" + "| 7 | 8 |\n".repeat(30_000);
    const cut = md.slice(0, SUMMARY_INPUT_CHARS);
    expect(cut.endsWith("| 7")).toBe(true);
    expect(summary(cut)).toEqual("## Summary\n\n" + "- a: 7; b: 8\n".repeat(7));
  });

  test("a sheet whose header row alone is longer than the summary input: no bar is left in the summary", () => {
    const md = "## Wide\n\n" + "| column ".repeat(30_000) + "|\n|" + " --- |".repeat(30_000) + "\n";
    const cut = md.slice(0, SUMMARY_INPUT_CHARS);
    expect(summary(cut)).toEqual("## Summary\n\n- Wide\n");
  });
});

describe("a document with prose keeps its prose summary", () => {
  test("the table is not summarised when sentences are there", () => {
    const md = "# Prices\n\nThe price list below is valid for the whole year.\n\n| item | price |\n| --- | --- |\n| Tea | 3 |\n";
    expect(summary(md)).toEqual("## Summary\n\n- The price list below is valid for the whole year.\n");
  });

  // stripMarkdown drops rows from "|" to "|"; a row cut short kept its words as a sentence.
  test("a row cut short after a table is not taken for a sentence", () => {
    const md = "The price list below is valid for the whole year.\n\n| item | note |\n| --- | --- |\n| Tea | served with milk and sugar on request";
    expect(summary(md)).toEqual("## Summary\n\n- The price list below is valid for the whole year.\n");
  });
});
