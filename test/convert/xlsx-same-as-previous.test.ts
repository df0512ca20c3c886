import { expect, test } from "bun:test";
import { xlsxToMarkdown } from "../../src/ingest/convert/xlsx.ts";
import { xlsxToMarkdown as xlsxToMarkdownPrevious } from "../../scripts/lib/xlsx-previous.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";
import { xlsx } from "./xlsx-fixture.ts";

// Shared strings and sheets are now read with the tokenizer's Scanner instead of its token objects,
// and a block of empty shared strings holds no offsets. The markdown (or the error) must be exactly
// what the previous converter (scripts/lib/xlsx-previous.ts) gave.

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const STRING_BITS = [
  "<si/>", "<si>", "</si>", "<t>", "</t>", "<t/>", "<t xml:space=\"preserve\">", "a", "b c", " ", "\n", "&amp;", "&#124;", "|",
  "<rPh>", "</rPh>", "<x:si>", "</x:si>", "<x:t>", "</x:t>", "<r>", "</r>", "<![CDATA[<q>&]]>", "<!-- c -->", "<si><t>w</t></si>",
];
const SHEET_BITS = [
  "<row>", "</row>", "<row/>", "<c r=\"A1\" t=\"s\">", "<c t=\"s\">", "<c t='s' t='n'>", "<c r=\"B2\">", "<c r=\"AAA3\" t=\"b\">",
  "<c r=\"ALL9\">", "<c t=\"inlineStr\">", "<is>", "</is>", "<v>", "</v>", "<v/>", "<t>", "</t>", "<c/>", "</c>", "<x:c r='C1' t='s'>",
  "</x:c>", "<x:v>", "</x:v>", "0", "1", "2", "3", "7", "12", "-1", "1.5", "x y", "&lt;|", "&amp;", "<c r=\"A1\" t=\"s\"><v>1</v></c>",
  "<c t=\"s\"><v>4</v></c>", "<c t=\"b\"><v>1</v></c>", "<c r=\"B1\"><v>2.5</v></c>",
];

function random(rand: () => number, bits: string[], n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += bits[Math.floor(rand() * bits.length)]!;
  return s;
}

const LIMITS = { maxUncompressedBytes: 200 * 2 ** 20, maxZipEntries: 10_000 };
const outcome = (f: () => string) => {
  try {
    return f();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
};
const same = async (strings: string, sheet: string) => {
  const bytes = await xlsx({
    "xl/sharedStrings.xml": `<?xml version="1.0"?><sst ${NS}>${strings}</sst>`,
    "xl/worksheets/sheet1.xml": `<?xml version="1.0"?><worksheet ${NS}><sheetData>${sheet}</sheetData></worksheet>`,
  });
  const label = JSON.stringify([strings.slice(0, 300), sheet.slice(0, 300)]);
  expect(outcome(() => xlsxToMarkdown(bytes, LIMITS)), label).toBe(outcome(() => xlsxToMarkdownPrevious(bytes, LIMITS)));
};

test("on 1,500 seeded random workbooks, the markdown is the previous converter's", async () => {
  const rand = rng(1500);
  for (let i = 0; i < 1500; i++) {
    await same(random(rand, STRING_BITS, Math.floor(rand() * 30)), random(rand, SHEET_BITS, Math.floor(rand() * 60)));
  }
}, 120_000);

test("empty shared strings by the block, with non-empty ones among them, name the same cells", async () => {
  // Blocks are 65,536 strings: all empty, empty then not, a non-empty string first and last in a block.
  const rand = rng(65536);
  const held: string[] = new Array(262_200).fill("");
  const at = [65535, 65536, 65537, 200_000, 262_143, 262_144, 262_199];
  for (const k of at) held[k] = `s${k}`;
  for (let k = 0; k < 300; k++) held[Math.floor(rand() * held.length)] = `r${k}`;
  const strings = held.map((s, k) => (s ? `<si><t>${s}</t></si>` : k % 3 ? "<si/>" : "<si><t></t></si>")).join("");
  const cells: string[] = [];
  for (const v of [...at.flatMap((k) => [k - 1, k, k + 1]), 0, 1, held.length]) cells.push(`<c t="s"><v>${v}</v></c>`);
  for (let k = 0; k < 500; k++) cells.push(`<c t="s"><v>${Math.floor(rand() * held.length)}</v></c>`);
  await same(strings, `<row>${cells.join("")}</row>`);
});
