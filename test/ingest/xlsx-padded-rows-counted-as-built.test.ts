import { afterAll, beforeAll, expect, test } from "bun:test";
import { XLSX } from "../../src/ingest/formats.ts";
import { xlsx } from "../convert/xlsx-fixture.ts";
import { corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// A sheet's rows are padded with empty cells up to their farthest cell as they are read, and the
// table's size was counted only once the sheet was read: 100,000 rows of one cell in column ALL
// (the 1000th), 11 KiB of zip, held 100 million empty cells and took the worker past its 1 GiB
// memory limit in about 2 s, ending FAILED with "raise --ingest-memory-bytes". The size is now
// checked as each row ends, and the document fails naming the table.

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

async function ingest(rows: number) {
  const bytes = await xlsx({ "xl/worksheets/sheet1.xml": `<?xml version="1.0"?><worksheet ${NS}><sheetData>${'<row><c r="ALL1"><v>1</v></c></row>'.repeat(rows)}</sheetData></worksheet>` });
  const { commit, status, statusMsg } = await ingestSettled(a, await corpus(a, `far-${rows}`), "far.xlsx", bytes, XLSX);
  expect(commit).toBe(202);
  return { size: bytes.length, end: { status, statusMsg } };
}

test("100,000 rows of one cell in column ALL: FAILED naming the table, not the memory limit", async () => {
  const { size, end } = await ingest(100_000);
  expect(size).toBeLessThan(64 * 1024);
  expect(end).toEqual({
    status: "FAILED",
    statusMsg: "the XLSX's tables would hold more than 200 MiB of text (each row padded to the widest row of its sheet), over the limit",
  });
}, 90_000);

test("1,000 such rows are a table like any other", async () => {
  expect((await ingest(1_000)).end.status).toBe("READY");
}, 90_000);
