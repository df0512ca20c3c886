import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { convert } from "../../src/ingest/convert/index.ts";
import { columnName } from "../../src/ingest/convert/xlsx.ts";
import { XLSX } from "../../src/ingest/formats.ts";
import { corpus } from "../documents/helpers.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { xlsx } from "./xlsx-fixture.ts";

// A sheet's table keeps its first 1000 columns. Cells past them were dropped without a word: a sheet with
// A1="a" and XFD1048576="far corner" ended READY as "| a |" alone. The table still stops at 1000 columns,
// but a line under it now says how many non-empty cells were left out, in which columns, and why.
// Rows have no such cap (a million-row sheet is kept whole), so nothing is said about rows.

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const sheet = (rows: string) => `<?xml version="1.0"?><worksheet ${NS}><sheetData>${rows}</sheetData></worksheet>`;
const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

/** The fixture's two-sheet workbook with its first sheet replaced. */
const workbookWithSheet = (rows: string) => xlsx({ "xl/worksheets/sheet1.xml": sheet(rows) });

const farCorner = `<row r="1">${inline("A1", "a")}</row><row r="1048576">${inline("XFD1048576", "far corner")}</row>`;
const farCornerNote =
  "*Left out of this sheet: 1 non-empty cell in columns ALM to XFD (past the first 1000 columns, the most a sheet's table keeps).*";

describe("columns past the 1000th are said, not dropped silently", () => {
  test("column letters", () => {
    expect([0, 25, 26, 701, 702, 999, 1000, 16383].map(columnName)).toEqual(["A", "Z", "AA", "ZZ", "AAA", "ALL", "ALM", "XFD"]);
  });

  test("the last cell of the largest sheet: the table keeps A1, a note names the cut", async () => {
    expect(await convert(await workbookWithSheet(farCorner), XLSX)).toEqual({
      nbPages: 0,
      // the row of the far corner is empty within the kept columns, so it is trimmed like any trailing empty row
      markdown: `## Sales 2024\n\n| a |\n| --- |\n\n${farCornerNote}\n\n## Empty\n`,
    });
  });

  test("cells in the 1000th column are kept; only those past it are counted, empty ones are not", async () => {
    const rows =
      `<row r="1">${inline("A1", "first")}${inline("ALL1", "thousandth")}${inline("ALM1", "cut one")}</row>` +
      `<row r="2">${inline("ALM2", "cut two")}${inline("ALN2", " ")}<c r="AMA2"/></row>`;
    const md = (await convert(await workbookWithSheet(rows), XLSX)).markdown;
    const lines = md.split("\n");
    // header row: "first", 998 empty cells, "thousandth"; the second row has nothing left in the kept
    // columns, so it is trimmed as a trailing empty row, but its cell past the limit is still counted
    expect(lines[2]).toBe("| first | " + " | ".repeat(998) + "thousandth |");
    expect(lines[3]).toBe("|" + " --- |".repeat(1000));
    expect(lines.slice(4)).toEqual([
      "",
      "*Left out of this sheet: 2 non-empty cells in column ALM (past the first 1000 columns, the most a sheet's table keeps).*",
      "",
      "## Empty",
      "",
    ]);
  });

  test("a sheet within the limit has no note", async () => {
    expect((await convert(await xlsx(), XLSX)).markdown).not.toContain("Left out");
  });
});

describe("over HTTP", () => {
  let k: Kbqa;
  let org: Org;
  let corpusId: string;
  beforeAll(async () => {
    k = await startKbqa({ flags: ["--workers", "1"] });
    org = await k.org();
    corpusId = await corpus(org, "sheets");
  }, 60_000);
  afterAll(() => k?.stop());

  test("the far-corner workbook ends READY and its chunk carries the note", async () => {
    const id = await ingestDocument(k, org, corpusId, "a1-and-far-corner.xlsx", await workbookWithSheet(farCorner), XLSX);
    const chunks = (await org.api("GET", `/v1/chunk/q?documentId=${id}&body=true`)).body.items as { body: string; metadata: { kind: string } }[];
    const text = chunks.filter((c) => c.metadata.kind === "chunk").map((c) => c.body).join("\n");
    expect(text).toContain("| a |");
    expect(text).toContain(farCornerNote);
  }, 120_000);
});
