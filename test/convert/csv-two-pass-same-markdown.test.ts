import { expect, test } from "bun:test";
import { csvToMarkdown } from "../../src/ingest/convert/csv.ts";
import { csvToMarkdownPrevious as oldCsvToMarkdown } from "../../scripts/lib/csv-previous.ts";

// CSV conversion no longer keeps a string per cell (it counts in one pass and writes in a second), and
// stored documents must not change for it. The oracle is the conversion as it was before
// (scripts/lib/csv-previous.ts), which parsed the whole text into rows of cells and rendered them at once.

const outcome = (f: () => string) => { try { return f(); } catch (e) { return `refused: ${(e as Error).message}`; } };
const same = (csv: string, maxChars?: number) => {
  const bytes = new TextEncoder().encode(csv);
  expect(outcome(() => csvToMarkdown(bytes, maxChars))).toBe(outcome(() => oldCsvToMarkdown(bytes, maxChars)));
};

const tricky = [
  "", "\n", "\n\n\n", '""', '""\n""\n', ",", ",,\n,", "a", "a\n", "a,b\r\nc,d\r\n", "a,b\rc\r",
  'a,"b,c",d\n1,"x ""quoted"" y",3', '"unterminated,\nstill\nin it', '"a"junk,b\n"c" "d",e',
  '"multi\n  line\n\n cell",x\n"  padded  ", tail ', "h1;h2;h3\n1;2\n;;;;\n", "h1\th2\n\tx\n\n\t\n",
  "a,b\n\n\nc\n", "a|b,c\\d\n|,\\\\", ' ,  \n"",\n,""', "only header\n", "a,b,c\n1\n1,2,3,4,5\n",
  '"",""\n""\n"" \n', "é,ü\n\u00a0x\u00a0,\u2028y", "x,\"\"\"\"\n\"\"\"a\"\"\",b", "a;b,c\nd;e,f", "a\tb;c\td\n",
  '"a\nb"', "trailing,comma,\n", "\n\na,b", 'a,"b\n', "a,b\n\"", '"\n"', "   \n  \n",
];

test("tricky CSVs: quotes, blank rows, ragged rows, separators, newlines in cells", () => {
  for (const csv of tricky) same(csv);
});

test("random CSVs from an alphabet of the characters the parser treats specially", () => {
  const alphabet = ['a', 'b', ',', ';', '\t', '"', '""', '\n', '\r\n', '\r', ' ', '|', '\\', '\u00a0', 'é'];
  let seed = 12345;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
  for (let k = 0; k < 3000; k++) {
    let s = "";
    const len = Math.floor(rand() * 40);
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
    same(s);
  }
});

test("the refusal falls at the same size, with the same words", () => {
  const csv = "h,h,h,h\n" + "y\n".repeat(50) + "a|b,\"c\nd\"\n";
  const bytes = new TextEncoder().encode(csv);
  const len = oldCsvToMarkdown(bytes).length;
  const outcomes = [];
  for (let max = len - 3; max <= len + 1; max++) {
    same(csv, max);
    outcomes.push(outcome(() => csvToMarkdown(bytes, max)).startsWith("refused: "));
  }
  expect(outcomes).toContain(true);
  expect(outcomes).toContain(false);
  expect(outcome(() => csvToMarkdown(bytes, 10))).toContain("padded to the 4 columns of its widest row");
});
