// The HTML converter and markdown writer as they were before a block's inline text was held in joined pieces (the
// oracle of test/convert/html-same-as-previous.test.ts).
// Accumulates markdown from structural events (used by the HTML and XLSX converters). All state is flat
// or in explicit stacks; no method recurses, so arbitrarily deep input cannot overflow the call stack.

import { TextBudget } from "../../../src/ingest/convert/text-budget.ts";

const BR = "\u0001"; // stands for <br> inside collected inline text until the block is flushed
const WS_RE = /[ \t\n\r\f]+/g;
// Indentation and quote prefixes stop growing past this depth; otherwise deeply nested input would make
// the output quadratic in the nesting depth.
const MAX_VISUAL_DEPTH = 8;

interface List { ordered: boolean; n: number; width: number }
interface Table { rows: string[][]; row: string[] | null; cell: string[] | null }
type Kind = "para" | "item" | "heading" | "table" | "code";

export function escapeCell(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|");
}

/**
 * The length of renderTable's text for `rows` rows padded to `cols` columns whose cells hold `cellChars`
 * characters in all: each row "| " + cells joined by " | " + " |" and a newline, the separator row "|" +
 * " --- |" per column.
 */
export function tableChars(rows: number, cols: number, cellChars: number): number {
  if (cols === 0 || rows === 0) return 0;
  return 1 + 6 * cols + rows * (4 + 3 * (cols - 1) + 1) + cellChars;
}

/** The length renderTable's text will have, and the column count it pads every row to; nothing is built. */
export function tableSize(rows: string[][]): { chars: number; cols: number } {
  let cols = 0;
  let cellChars = 0;
  for (const r of rows) {
    if (r.length > cols) cols = r.length;
    for (const c of r) cellChars += c.length;
  }
  return { chars: tableChars(rows.length, cols, cellChars), cols };
}

export function renderTable(rows: string[][]): string {
  // A loop, not Math.max(...): spreading a million-row table into one call overflows the stack.
  let cols = 0;
  for (const r of rows) if (r.length > cols) cols = r.length;
  if (cols === 0 || rows.length === 0) return "";
  const line = (r: string[]) => "| " + Array.from({ length: cols }, (_, i) => r[i] ?? "").join(" | ") + " |";
  const out = [line(rows[0]!), "|" + " --- |".repeat(cols)];
  for (let i = 1; i < rows.length; i++) out.push(line(rows[i]!));
  return out.join("\n");
}

/**
 * A fence the code cannot close: one backtick more than its longest backtick run, at least three. Found in
 * one pass; growing a fence until the code stops containing it rescanned the code once per backtick.
 */
export function codeFence(code: string): string {
  let longest = 0;
  for (const m of code.matchAll(/`+/g)) if (m[0].length > longest) longest = m[0].length;
  return "`".repeat(Math.max(3, longest + 1));
}

/** Keeps a text line from being read as markdown structure (heading, list, quote, table, fence). */
export function escapeLineStart(line: string): string {
  const m = /^(#|>|[-*+](?=\s)|\||```|~~~)/.exec(line);
  if (m) return "\\" + line;
  return line.replace(/^(\d+)([.)])(?=\s)/, "$1\\$2");
}

export class MarkdownWriter {
  /** `maxTableChars`: the most text all tables together may hold; each row is padded to its table's widest, so a few rows can ask for gigabytes. */
  constructor(maxTableChars = Number.POSITIVE_INFINITY) {
    this.tableBudget = new TextBudget(maxTableChars, "the document's tables would hold", "each table row padded to the widest row of its table");
  }
  private readonly tableBudget: TextBudget;
  private out: string[] = [];
  private lastKind: Kind | null = null;
  private inline: string[] = [];
  private heading = 0;
  private lists: List[] = [];
  private pendingMarker: string | null = null;
  private tables: Table[] = [];
  private innerTables = 0;
  private pre = 0;
  private preBuf: string[] = [];
  private quote = 0;

  private cell(): string[] | null {
    const t = this.tables[this.tables.length - 1];
    return t ? t.cell : null;
  }

  text(s: string): void {
    if (this.pre > 0) this.preBuf.push(s);
    else (this.cell() ?? this.inline).push(s);
  }

  lineBreak(): void {
    if (this.pre > 0) this.preBuf.push("\n");
    else if (this.cell()) this.cell()!.push(" ");
    else this.inline.push(BR);
  }

  blockBreak(): void {
    const c = this.cell();
    if (c) c.push(" ");
    else if (this.pre === 0) this.flush();
  }

  startHeading(level: number): void {
    if (this.cell() || this.pre) return this.blockBreak();
    this.flush();
    this.heading = level;
  }

  endHeading(): void {
    if (this.cell() || this.pre) return this.blockBreak();
    this.flush();
    this.heading = 0;
  }

  startList(ordered: boolean, start = 1): void {
    this.blockBreak();
    if (!this.cell()) this.lists.push({ ordered, n: start, width: 2 });
  }

  endList(): void {
    this.blockBreak();
    if (!this.cell()) this.lists.pop();
    this.pendingMarker = null;
    // a following list must not continue this one
    if (this.lists.length === 0 && this.lastKind === "item") this.lastKind = "para";
  }

  startItem(): void {
    this.blockBreak();
    if (this.cell()) return;
    if (this.lists.length === 0) this.lists.push({ ordered: false, n: 1, width: 2 });
    const l = this.lists[this.lists.length - 1]!;
    this.pendingMarker = l.ordered ? `${l.n++}. ` : "- ";
    l.width = this.pendingMarker.length;
  }

  endItem(): void {
    this.blockBreak();
    this.pendingMarker = null;
  }

  startQuote(): void {
    this.blockBreak();
    if (!this.cell()) this.quote++;
  }

  endQuote(): void {
    this.blockBreak();
    if (!this.cell() && this.quote > 0) this.quote--;
  }

  startPre(): void {
    if (this.cell()) return;
    if (this.pre++ === 0) {
      this.flush();
      this.preBuf = [];
    }
  }

  endPre(): void {
    if (this.cell() || this.pre === 0) return;
    if (--this.pre > 0) return;
    const code = this.preBuf.join("").replace(/^\n/, "").replace(/\s+$/, "");
    this.preBuf = [];
    if (!code) return;
    const fence = codeFence(code);
    this.emit(`${fence}\n${code}\n${fence}`, "code");
  }

  startTable(): void {
    const c = this.cell();
    // a table inside a cell cannot be a markdown table; its cells are folded into the outer cell as text
    if (c || this.innerTables > 0) {
      this.innerTables++;
      if (c) c.push(" ");
      return;
    }
    this.flush();
    this.tables.push({ rows: [], row: null, cell: null });
  }

  startRow(): void {
    if (this.innerTables > 0) return this.blockBreak();
    const t = this.tables[this.tables.length - 1];
    if (!t) return this.blockBreak();
    this.endRow();
    t.row = [];
  }

  startCell(): void {
    if (this.innerTables > 0) return this.blockBreak();
    const t = this.tables[this.tables.length - 1];
    if (!t) return this.blockBreak();
    if (t.cell) this.endCell();
    if (!t.row) t.row = [];
    t.cell = [];
  }

  endCell(): void {
    if (this.innerTables > 0) return this.blockBreak();
    const t = this.tables[this.tables.length - 1];
    if (!t || !t.cell) return;
    t.row!.push(escapeCell(t.cell.join("").replace(WS_RE, " ").replace(/\u00a0/g, " ").trim()));
    t.cell = null;
  }

  endRow(): void {
    if (this.innerTables > 0) return this.blockBreak();
    const t = this.tables[this.tables.length - 1];
    if (!t) return;
    this.endCell();
    if (t.row && t.row.length) t.rows.push(t.row);
    t.row = null;
  }

  endTable(): void {
    if (this.innerTables > 0) {
      this.innerTables--;
      return this.blockBreak();
    }
    this.endRow();
    const t = this.tables.pop();
    if (!t) return;
    this.tableBudget.spend(tableSize(t.rows).chars);
    this.emit(renderTable(t.rows), "table");
  }

  /** Turns the collected inline text into a block with the prefix the current context asks for. */
  private flush(): void {
    if (this.inline.length === 0) return;
    const raw = this.inline.join("");
    this.inline = [];
    const lines = raw
      .replace(WS_RE, " ")
      .replace(/\u00a0/g, " ")
      .split(BR)
      .map((l) => l.trim())
      .filter((l) => l.length > 0);
    if (lines.length === 0) return;
    if (this.heading > 0) {
      this.emit("#".repeat(this.heading) + " " + lines.join(" "), "heading");
      return;
    }
    const depth = this.lists.length;
    if (depth > 0) {
      let indent = "";
      for (let i = Math.max(0, depth - MAX_VISUAL_DEPTH); i < depth - 1; i++) indent += " ".repeat(this.lists[i]!.width);
      const marker = this.pendingMarker;
      const cont = indent + " ".repeat(this.lists[depth - 1]!.width);
      this.pendingMarker = null;
      const body = lines.map((l, i) => (i === 0 && marker ? indent + marker : cont) + escapeLineStart(l));
      this.emit(body.join("\n"), marker ? "item" : "para");
      return;
    }
    this.emit(lines.map(escapeLineStart).join("\n"), "para");
  }

  private emit(block: string, kind: Kind): void {
    if (!block) return;
    if (this.quote > 0) {
      const p = "> ".repeat(Math.min(this.quote, MAX_VISUAL_DEPTH));
      block = block.split("\n").map((l) => p + l).join("\n");
    }
    if (this.out.length) this.out.push(kind === "item" && this.lastKind === "item" ? "\n" : "\n\n");
    this.out.push(block);
    this.lastKind = kind;
  }

  finish(): string {
    this.innerTables = 0;
    while (this.tables.length) this.endTable();
    this.pre = Math.min(this.pre, 1);
    this.endPre();
    this.flush();
    return this.out.length ? this.out.join("") + "\n" : "";
  }
}
