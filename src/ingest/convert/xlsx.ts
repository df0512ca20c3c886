import { ConversionError } from "./errors.ts";
import { decodeEntities, END, Scanner, START, tokenize } from "./html-tokenizer.ts";
import { escapeCell, renderTable, tableChars, tableSize } from "./markdown-writer.ts";
import { ZipArchive, type ZipLimits } from "./zip.ts";
import { TextBudget } from "./text-budget.ts";

// XLSX → one `## <sheet>` section with a markdown table per sheet. Reads only what text needs:
// workbook (sheet names), its relationships, shared strings and cell values.

const local = (name: string) => name.slice(name.indexOf(":") + 1);

/**
 * The shared strings, held as their text joined into one string and where each ends, in blocks of
 * 4-byte offsets: an array of them took 8 bytes per string and grew by copying, and a 278 KB file of
 * 38 million empty strings took the worker past its 1 GiB memory limit with that array alone. A block
 * whose strings are all empty has no offsets (they all end where the block starts): those 38 million
 * took 152 MB of offsets that said nothing.
 */
export class SharedStrings {
  private static readonly BLOCK = 1 << 16;
  /** Per block, where each of its strings ends; null while all of them are empty. */
  private readonly blocks: (Uint32Array | null)[] = [];
  /** Per block, the length of the text before it. */
  private readonly starts: number[] = [];
  private chunks: string[] = [];
  private parts: string[] = [];
  private text = "";
  private length = 0;
  private count = 0;

  add(s: string): void {
    const k = this.count % SharedStrings.BLOCK;
    const b = Math.floor(this.count / SharedStrings.BLOCK);
    if (k === 0) {
      this.blocks.push(null);
      this.starts.push(this.length);
    }
    if (s) {
      this.parts.push(s);
      this.length += s.length;
      if (this.parts.length >= 8192) {
        this.chunks.push(this.parts.join(""));
        this.parts = [];
      }
      // the empty strings before it in the block end where the block starts
      if (!this.blocks[b]) this.blocks[b] = new Uint32Array(SharedStrings.BLOCK).fill(this.starts[b]!, 0, k);
    }
    const block = this.blocks[b];
    if (block) block[k] = this.length;
    this.count++;
  }

  /** Called once all are added. */
  done(): this {
    this.chunks.push(this.parts.join(""));
    this.text = this.chunks.join("");
    this.chunks = [];
    this.parts = [];
    return this;
  }

  /** The string at an index as a cell's value names it; "" for none (what an array lookup gave). */
  get(value: string): string {
    const i = Number(value);
    if (!Number.isInteger(i) || i < 0 || i >= this.count) return "";
    const end = this.at(i);
    return this.text.slice(i === 0 ? 0 : this.at(i - 1), end);
  }

  private at(i: number): number {
    const b = Math.floor(i / SharedStrings.BLOCK);
    return this.blocks[b]?.[i % SharedStrings.BLOCK] ?? this.starts[b]!;
  }
}

function sharedStrings(xml: string | null): SharedStrings {
  const out = new SharedStrings();
  if (!xml) return out.done();
  // The text of the <si> being read, in pieces; one array for all of them.
  const cur: string[] = [];
  let inSi = false;
  let inT = false;
  let inPhonetic = false;
  for (const s = new Scanner(xml, true); s.next(); ) {
    if (s.kind === START) {
      if (s.localIs("si")) {
        cur.length = 0;
        inSi = !s.selfClosing;
        if (s.selfClosing) out.add("");
      } else if (s.localIs("t")) inT = !s.selfClosing;
      else if (s.localIs("rPh")) inPhonetic = true;
    } else if (s.kind === END) {
      if (s.localIs("si")) {
        if (inSi) out.add(cur.length === 1 ? cur[0]! : cur.join(""));
        inSi = false;
      } else if (s.localIs("t")) inT = false;
      else if (s.localIs("rPh")) inPhonetic = false;
    } else if (inSi && inT && !inPhonetic) cur.push(decodeEntities(s.text));
  }
  return out.done();
}

/**
 * Past this a reference is held: a sheet ends at XFD (16384 columns), but a reference of hundreds of
 * letters made the index Infinity, and naming that column in the note under the table never ended
 * (a 1 KiB file held its worker until the memory limit killed it).
 */
const MAX_COLUMN_INDEX = 2 ** 40;

function columnIndex(ref: string | undefined, fallback: number): number {
  const m = ref ? /^([A-Z]+)/.exec(ref) : null;
  if (!m) return fallback;
  let n = 0;
  for (const ch of m[1]!) {
    n = n * 26 + (ch.charCodeAt(0) - 64);
    if (n > MAX_COLUMN_INDEX) return MAX_COLUMN_INDEX;
  }
  return n - 1;
}

/** A sheet's table keeps its first 1000 columns; what lies past them is counted and said under the table. */
export const MAX_COLUMNS = 1000;

/** Spreadsheet column letters of a zero-based index: 0 → A, 25 → Z, 26 → AA, 16383 → XFD. */
export function columnName(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

interface Sheet {
  rows: string[][];
  /** Non-empty cells at or past MAX_COLUMNS, left out of the table. */
  cutCells: number;
  /** The farthest zero-based column among them (-1 when none). */
  cutLastColumn: number;
}

/**
 * `tables` is checked as rows are built, each padded to its farthest cell: 100,000 rows of one
 * cell in column ALL (11 KiB of zip) held 100 million empty cells, past the worker's 1 GiB memory
 * limit before the table's size was counted. The table pads every row to its widest anyway, so
 * its size so far never exceeds what the finished sheet is charged.
 */
function sheetRows(xml: string, strings: SharedStrings, budget: TextBudget, tables: TextBudget): Sheet {
  const rows: string[][] = [];
  let cols = 0;
  let cellChars = 0;
  const ended = (r: string[]) => {
    rows.push(r);
    if (r.length > cols) cols = r.length;
    tables.check(tableChars(rows.length, cols, cellChars));
  };
  let cutCells = 0;
  let cutLastColumn = -1;
  let row: string[] | null = null;
  let cellType = "";
  let col = 0;
  let value: string[] | null = null;
  let inValue = false;
  for (const t = new Scanner(xml, true); t.next(); ) {
    if (t.kind === START) {
      if (t.localIs("row")) { row = []; col = 0; if (t.selfClosing) { ended(row); row = null; } }
      else if (t.localIs("c") && row) {
        col = columnIndex(t.attr("r"), col);
        cellType = t.attr("t") ?? "n";
        value = [];
        if (t.selfClosing) { value = null; col++; }
      } else if ((t.localIs("v") || t.localIs("t")) && value) inValue = !t.selfClosing;
    } else if (t.kind === END) {
      if ((t.localIs("v") || t.localIs("t")) && value) inValue = false;
      else if (t.localIs("c") && row && value) {
        let text = value.join("");
        if (cellType === "s") text = strings.get(text);
        else if (cellType === "b") text = text === "1" ? "TRUE" : "FALSE";
        budget.spend(text.length);
        const cell = escapeCell(text.replace(/\s+/g, " ").trim());
        if (col < MAX_COLUMNS) {
          while (row.length < col) row.push("");
          row[col] = cell;
          cellChars += cell.length;
        } else if (cell) {
          cutCells++;
          if (col > cutLastColumn) cutLastColumn = col;
        }
        value = null;
        col++;
      } else if (t.localIs("row") && row) { ended(row); row = null; }
    } else if (value && inValue) value.push(decodeEntities(t.text));
  }
  // drop trailing empty rows so sparse formatting does not make giant tables
  while (rows.length && rows[rows.length - 1]!.every((c) => !c)) rows.pop();
  return { rows, cutCells, cutLastColumn };
}

/** The line under a sheet's table that says what the column limit left out, so nothing is lost silently. */
export function columnCutNote(cutCells: number, cutLastColumn: number): string {
  const first = columnName(MAX_COLUMNS);
  const last = columnName(cutLastColumn);
  const span = cutLastColumn === MAX_COLUMNS ? `column ${first}` : `columns ${first} to ${last}`;
  const cells = cutCells === 1 ? "1 non-empty cell" : `${cutCells} non-empty cells`;
  return `*Left out of this sheet: ${cells} in ${span} (past the first ${MAX_COLUMNS} columns, the most a sheet's table keeps).*`;
}

export function xlsxToMarkdown(bytes: Uint8Array, limits: ZipLimits): string {
  const zip = new ZipArchive(bytes, limits);
  const workbook = zip.readText("xl/workbook.xml");
  if (!workbook) throw new ConversionError("the XLSX has no xl/workbook.xml part");
  const rels = new Map<string, string>();
  for (const t of tokenize(zip.readText("xl/_rels/workbook.xml.rels") ?? "", { xml: true })) {
    if (t.type === "start" && local(t.name) === "Relationship" && t.attrs.Id && t.attrs.Target) {
      rels.set(t.attrs.Id, t.attrs.Target);
    }
  }
  const strings = sharedStrings(zip.readTextOnce("xl/sharedStrings.xml"));
  const sections: string[] = [];
  // Cell text across all sheets: a shared string is stored once but shown in every cell naming it.
  const budget = new TextBudget(limits.maxUncompressedBytes, "the XLSX's cells hold", "a few shared strings repeated across many cells");
  // And the tables they make: each row is padded to its sheet's widest, so one far cell widens them all.
  const tables = new TextBudget(limits.maxUncompressedBytes, "the XLSX's tables would hold", "each row padded to the widest row of its sheet");
  // And the XML parsed again for a sheet listed more than once (the first reading of each part is held
  // by the zip limits): a 10 KiB file listing one 5 MB sheet of empty rows 20,000 times, no text to
  // count, held its worker until the time limit.
  const reparsed = new TextBudget(limits.maxUncompressedBytes, "the XLSX's sheets, counted each time its workbook lists them, hold", "one sheet listed many times over");
  const seen = new Set<string>();
  for (const t of tokenize(workbook, { xml: true })) {
    if (t.type !== "start" || local(t.name) !== "sheet") continue;
    const rid = Object.entries(t.attrs).find(([k]) => local(k) === "id")?.[1];
    const target = rid ? rels.get(rid) : undefined;
    if (!target) continue;
    const path = target.startsWith("/") ? target.slice(1) : "xl/" + target.replace(/^\.\//, "");
    const xml = zip.readTextOnce(path);
    if (xml === null) continue;
    if (seen.has(path)) reparsed.spend(xml.length);
    seen.add(path);
    const sheet = sheetRows(xml, strings, budget, tables);
    tables.spend(tableSize(sheet.rows).chars);
    const table = renderTable(sheet.rows);
    const note = sheet.cutCells ? columnCutNote(sheet.cutCells, sheet.cutLastColumn) : "";
    sections.push(`## ${(t.attrs.name ?? "Sheet").replace(/\s+/g, " ")}` + (table ? `\n\n${table}` : "") + (note ? `\n\n${note}` : ""));
  }
  return sections.length ? sections.join("\n\n") + "\n" : "";
}
