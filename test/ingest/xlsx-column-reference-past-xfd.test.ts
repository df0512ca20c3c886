import { afterAll, beforeAll, expect, test } from "bun:test";
import { XLSX } from "../../src/ingest/formats.ts";
import { xlsx } from "../convert/xlsx-fixture.ts";
import { chunkBodies, corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// A cell reference of hundreds of letters (a sheet ends at XFD) made the column index Infinity, and
// naming that column in the note under the table looped forever: a 1 KiB XLSX grew its worker to the
// 1 GiB memory limit in about 1.5 s and ended FAILED telling the operator to raise
// --ingest-memory-bytes. The index is now held at a finite bound: the cell is counted in the note
// like any other cell past the table's 1000 columns, and the document is READY.

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

test("a cell at a column reference of 400 letters: READY, the cell counted past the table", async () => {
  const bytes = await xlsx({
    "xl/worksheets/sheet1.xml": `<?xml version="1.0"?><worksheet ${NS}><sheetData><row r="1">${inline("A1", "kept value")}${inline(`${"A".repeat(400)}1`, "far away")}${inline("", "after it")}</row></sheetData></worksheet>`,
  });
  const end = await ingestSettled(a, await corpus(a, "far"), "far.xlsx", bytes, XLSX);
  expect({ commit: end.commit, status: end.status, statusMsg: end.statusMsg }).toEqual({ commit: 202, status: "READY", statusMsg: undefined });
  const text = (await chunkBodies(a, end.id)).join("\n");
  expect(text).toContain("| kept value |");
  expect(text).toMatch(/Left out of this sheet: 2 non-empty cells in columns ALM to [A-Z]+ \(past the first 1000 columns/);
}, 90_000);
