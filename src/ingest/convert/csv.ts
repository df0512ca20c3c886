import { decodeText } from "./text.ts";
import { ConversionError } from "./errors.ts";
import { escapeCell, tableChars } from "./markdown-writer.ts";
import { formatBytes } from "../units.ts";

/**
 * What a pass over the rows does: `cell` and `row` get the fields of a row one at a time; `line` gets a whole
 * row at once, as where it lies in the text ([start, end)), when no field of it needs quoting, trimming or escaping.
 */
interface RowSink {
  line(start: number, end: number, fields: number): void;
  cell(f: string, index: number): void;
  row(fields: number): void;
}

/**
 * Hands the CSV's rows to `sink` one at a time and keeps none of them, so a pass holding only counts or output
 * text uses memory in proportion to the text, not to its number of cells. A row of one empty field (a blank
 * line) is dropped. A line with no quote is a whole row; when its cells need no cleaning it goes to `line`
 * unsplit, which is most rows of a data export and costs no string per cell.
 */
function forEachRow(text: string, sep: string, sink: RowSink): void {
  const n = text.length;
  const sepCode = sep.charCodeAt(0);
  const plain = new RegExp(`[^${sep === "\t" ? "\\t" : sep}\\n]*`, "y");
  const special = /[\\|]/;
  const unclean = new RegExp(`^\\s|\\s$|\\s${sep}|${sep}\\s`);
  let i = 0;
  while (i < n) {
    let end = text.indexOf("\n", i);
    if (end < 0) end = n;
    // Most rows of a data export are told clean without a string of their own: a slice and the regex
    // tests per row of millions are garbage the collector lets pile up.
    const clean = cleanFields(text, i, end, sepCode);
    if (clean > 0) {
      sink.line(i, end, clean);
      i = end + 1;
      continue;
    }
    const line = text.slice(i, end);
    if (!line.includes('"')) {
      if (line === "") { i = end + 1; continue; }
      if (!special.test(line) && !unclean.test(line)) {
        let fields = 1;
        for (let k = line.indexOf(sep); k >= 0; k = line.indexOf(sep, k + 1)) fields++;
        sink.line(i, end, fields);
        i = end + 1;
        continue;
      }
    }
    i = scanRow(text, i, sep, plain, sink);
  }
}

/** What `\s` matches. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));
}

/**
 * The number of fields of the line [i, end) when it takes forEachRow's whole-row path (no quote, not empty,
 * no '\\' or '|', no space at either end or beside a separator), else 0; what the regex tests on the line's
 * slice decide, read in place.
 */
function cleanFields(text: string, i: number, end: number, sep: number): number {
  if (end === i || isSpace(text.charCodeAt(i)) || isSpace(text.charCodeAt(end - 1))) return 0;
  let fields = 1;
  for (let k = i; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === 34 || c === 92 || c === 124) return 0;
    if (c === sep) {
      if ((k > i && isSpace(text.charCodeAt(k - 1))) || (k + 1 < end && isSpace(text.charCodeAt(k + 1)))) return 0;
      fields++;
    }
  }
  return fields;
}

/** RFC 4180 parsing of the row starting at `i`: quoted fields may hold separators, doubled quotes and newlines. Returns where the next row starts. */
function scanRow(text: string, i: number, sep: string, plain: RegExp, sink: RowSink): number {
  const n = text.length;
  let count = 0;
  // A first field that is empty is held back: if the row ends there, the row is blank and dropped.
  let heldEmpty = false;
  const field = (f: string) => {
    if (count === 0 && f === "") { heldEmpty = true; count = 1; return; }
    if (heldEmpty) { sink.cell("", 0); heldEmpty = false; }
    sink.cell(f, count++);
  };
  const endRow = () => { if (!(count === 1 && heldEmpty)) sink.row(count); };
  let f = "";
  while (i < n) {
    const c = text[i]!;
    if (c === '"' && f === "") {
      let j = i + 1;
      const parts: string[] = [];
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) { parts.push(text.slice(j)); j = n; break; }
        parts.push(text.slice(j, q));
        if (text[q + 1] === '"') { parts.push('"'); j = q + 2; continue; }
        j = q + 1;
        break;
      }
      f = parts.join("");
      // tolerate junk between the closing quote and the separator
      while (j < n && text[j] !== sep && text[j] !== "\n") f += text[j++];
      i = j;
      continue;
    }
    if (c === sep) { field(f); f = ""; i++; continue; }
    if (c === "\n") { field(f); endRow(); return i + 1; }
    plain.lastIndex = i;
    const run = plain.exec(text)![0];
    f += run || c;
    i += run.length || 1;
  }
  if (f !== "" || count) { field(f); endRow(); }
  return n;
}

export function parseCsv(text: string, sep = ","): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  forEachRow(text, sep, {
    line: (start, end) => rows.push(text.slice(start, end).split(sep)),
    cell: (f) => row.push(f),
    row: () => { rows.push(row); row = []; },
  });
  return rows;
}

/** Picks ';' or tab over ',' when the first line clearly uses it (common in European exports). */
function detectSeparator(text: string): string {
  const first = text.slice(0, text.indexOf("\n") < 0 ? text.length : text.indexOf("\n"));
  const count = (s: string) => first.split(s).length - 1;
  const best = [",", ";", "\t"].sort((x, y) => count(y) - count(x))[0]!;
  return count(best) > 0 ? best : ",";
}

/** The most text of rows written together. */
const RUN_CHARS = 64 * 1024;

const cellText = (f: string) => escapeCell(f.replace(/\s*\n\s*/g, " ").trim());

/**
 * `maxChars`: the most text the table may hold; every row is padded to the widest, so a few KiB of ragged rows
 * can ask for gigabytes. Two passes over the text: the first only counts (widest row, rows, text of the
 * cells), so an oversized table is refused before any of it is built; the second writes the markdown rows.
 * Holding every cell as its own string cost about 30 times the file: a 39 MB export of 20,000 rows by 1,000
 * columns went past the worker's 1 GiB limit.
 */
export function csvToMarkdown(bytes: Uint8Array, maxChars = Number.POSITIVE_INFINITY): string {
  const text = decodeText(bytes);
  const sep = detectSeparator(text);
  let cols = 0;
  let rows = 0;
  let cellChars = 0;
  const counted = (fields: number) => {
    rows++;
    if (fields > cols) cols = fields;
  };
  forEachRow(text, sep, {
    line: (start, end, fields) => { cellChars += end - start - (fields - 1); counted(fields); },
    cell: (f) => { cellChars += cellText(f).length; },
    row: counted,
  });
  if (rows === 0) return "";
  const chars = tableChars(rows, cols, cellChars);
  if (chars > maxChars) {
    throw new ConversionError(`the CSV's table would hold more than ${formatBytes(maxChars)} of text (each of its rows padded to the ${cols} columns of its widest row), over the limit`);
  }
  // Small pieces are joined into chunks now and then: a string per cell kept to the end is what this avoids.
  const chunks: string[] = [];
  let parts: string[] = [];
  const put = (s: string) => {
    parts.push(s);
    if (parts.length >= 8192) { chunks.push(parts.join("")); parts = []; }
  };
  let row = 0;
  const ended = (fields: number) => {
    put(" | ".repeat(cols - fields) + " |\n");
    if (row++ === 0) put("|" + " --- |".repeat(cols) + "\n");
  };
  // Whole rows of the widest width after the first, one after the other in the text: written together
  // with two replaceAll calls on their slice, not three strings a row.
  let runStart = -1;
  let runEnd = -1;
  const writeRun = () => {
    if (runStart < 0) return;
    put("| " + text.slice(runStart, runEnd).replaceAll(sep, " | ").replaceAll("\n", " |\n| ") + " |\n");
    runStart = -1;
  };
  forEachRow(text, sep, {
    line: (start, end, fields) => {
      if (fields === cols && row > 0) {
        if (runStart >= 0 && start === runEnd + 1 && end - runStart <= RUN_CHARS) {
          runEnd = end;
        } else {
          writeRun();
          runStart = start;
          runEnd = end;
        }
        row++;
        return;
      }
      writeRun();
      put("| " + text.slice(start, end).replaceAll(sep, " | "));
      ended(fields);
    },
    cell: (f, index) => { writeRun(); put((index === 0 ? "| " : " | ") + cellText(f)); },
    row: (fields) => { writeRun(); ended(fields); },
  });
  writeRun();
  chunks.push(parts.join(""));
  return chunks.join("");
}
