import { expect, test } from "bun:test";
import { csvToMarkdown } from "../../src/ingest/convert/csv.ts";
import { csvToMarkdownPrevious } from "../../scripts/lib/csv-previous.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";

// Clean rows (no quote, nothing to trim or escape) are now told apart in place, and runs of them as wide
// as the widest row are written together from one slice of the text. Long files of mostly such rows,
// broken now and then by a narrower, wider, quoted, spaced, escaped or blank row, must convert exactly
// as the previous version (scripts/lib/csv-previous.ts) did.

const CELLS = ["a", "bc", "123", "4.5", "é", "x y", "", "-"];
const ODD = ['"q, d"', " pad", "pad ", "a|b", "c\\d", "\u00a0n", "x\u2028", "\t"];

function randomCsv(rand: () => number, rows: number, sep: string): string {
  const cols = 1 + Math.floor(rand() * 5);
  let s = "";
  for (let r = 0; r < rows; r++) {
    const roll = rand();
    if (roll < 0.01) { s += "\n"; continue; }
    const width = roll < 0.05 ? Math.max(1, cols + Math.floor(rand() * 3) - 1) : cols;
    const cells: string[] = [];
    for (let c = 0; c < width; c++) cells.push(rand() < 0.02 ? ODD[Math.floor(rand() * ODD.length)]! : CELLS[Math.floor(rand() * CELLS.length)]!);
    s += cells.join(sep) + (rand() < 0.01 ? "\r\n" : "\n");
  }
  return rand() < 0.5 ? s : s.slice(0, -1);
}

test("300 seeded files of up to 20,000 rows, with ',', ';' and tab separators", () => {
  const rand = rng(3_000_000);
  for (let k = 0; k < 300; k++) {
    const sep = [",", ";", "\t"][k % 3]!;
    const csv = randomCsv(rand, k % 25 === 0 ? 20_000 : Math.floor(rand() * 300), sep);
    const bytes = new TextEncoder().encode(csv);
    expect(csvToMarkdown(bytes), JSON.stringify(csv.slice(0, 300))).toBe(csvToMarkdownPrevious(bytes));
  }
});
