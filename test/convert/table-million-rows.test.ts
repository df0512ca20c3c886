import { describe, expect, test } from "bun:test";
import { csvToMarkdown } from "../../src/ingest/convert/csv.ts";
import { htmlToMarkdown } from "../../src/ingest/convert/html-to-markdown.ts";
import { renderTable } from "../../src/ingest/convert/markdown-writer.ts";

// A valid table of about a million rows used to overflow the call stack (RangeError) because the column
// count was computed by spreading every row length into Math.max.

const ROWS = 1_000_000;
const enc = (s: string) => new TextEncoder().encode(s);

function lineCount(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

describe("tables of a million rows", () => {
  test("renderTable takes the widest row as the column count", () => {
    const rows: string[][] = Array.from({ length: ROWS }, () => ["v"]);
    rows[ROWS - 1] = ["a", "b", "c"];
    const md = renderTable(rows);
    // header, separator, then every other row
    expect(lineCount(md) + 1).toBe(ROWS + 1);
    expect(md.slice(0, md.indexOf("\n", md.indexOf("\n") + 1))).toBe("| v |  |  |\n| --- | --- | --- |");
    expect(md.endsWith("| a | b | c |")).toBe(true);
  });

  test("CSV of a million one-column rows converts", () => {
    const md = csvToMarkdown(enc("v\n".repeat(ROWS)));
    expect(md.startsWith("| v |\n| --- |\n| v |\n")).toBe(true);
    expect(lineCount(md)).toBe(ROWS + 1);
  });

  test("HTML table of a million rows converts", () => {
    const md = htmlToMarkdown("<table>" + "<tr><td>a".repeat(ROWS) + "</table>");
    expect(md.startsWith("| a |\n| --- |\n| a |\n")).toBe(true);
    expect(lineCount(md)).toBe(ROWS + 1);
  }, 60_000);
});
