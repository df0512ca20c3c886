// What the extractive summary reads besides prose: the rows of markdown tables and the lines of
// fenced code blocks. CSV and XLSX documents are converted to tables only and JSON to one code
// block, and stripMarkdown drops both, so such a document had no sentence left and its summary was
// the bare heading; a summary input cut in the middle of a table or of a code block kept the cut
// row ("| 7") or the code ("json [[[[…") as a sentence.
//
// Everything here is one pass over the lines with hand-written scans, no regex anchored to line
// starts (see the comments in builtin-summary.ts: such regexes once took 50 s on 1,000,000 "[").

export interface Blocks {
  /**
   * The markdown for stripMarkdown: fenced code blocks (an unclosed one runs to the end, as in
   * CommonMark) become "\n", as stripMarkdown turns them, and a table line without its closing
   * "|" after another table line or at the very end (a row cut at the end of the summary input)
   * is emptied; the rest is unchanged.
   */
  prose: string;
  /** The first `maxItems` table rows and code lines as plain one-line items, in document order. */
  items: string[];
}

const isLineEnd = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
const isBlank = (c: number) => c === 0x20 || c === 0x09;
/** What /\s/ matches, by character code (a regex test per character cost a string each). */
const isWhite = (c: number) =>
  c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
const isSpace = (s: string, i: number) => isWhite(s.charCodeAt(i)); // NaN out of range: false
const HAS_WORD = /[\p{L}\p{N}]/u;
const BACKTICK = 0x60;
const BAR = 0x7c;

/** The length of the backtick run at s[i]. */
function ticksAt(s: string, i: number, e: number): number {
  let j = i;
  while (j < e && s.charCodeAt(j) === BACKTICK) j++;
  return j - i;
}

/** Spaces and tabs only in s[i, e)? */
function blankTo(s: string, i: number, e: number): boolean {
  for (; i < e; i++) if (!isBlank(s.charCodeAt(i))) return false;
  return true;
}

/** A backtick in s[i, e)? */
function hasBacktick(s: string, i: number, e: number): boolean {
  for (; i < e; i++) if (s.charCodeAt(i) === BACKTICK) return true;
  return false;
}

/** A table's delimiter row: only "|", "-", ":" and blanks, with at least one "-". */
function isDelimiterRow(s: string, a: number, b: number): boolean {
  let dash = false;
  for (let i = a; i < b; i++) {
    const c = s[i]!;
    if (c === "-") dash = true;
    else if (c !== "|" && c !== ":" && !isBlank(s.charCodeAt(i))) return false;
  }
  return dash;
}

/**
 * The cells of a table row s[a, b) (a at its first "|"): the text between unescaped bars, with
 * the converters' escapes (\| and \\) undone, whitespace runs made one space. `limit` stops after
 * that many characters of cell text: a row of a million columns is not split whole for one bullet.
 */
function rowCells(s: string, a: number, b: number, limit = Infinity): string[] {
  const cells: string[] = [];
  let cell = "";
  let taken = 0;
  for (let i = a + 1; i < b; i++) {
    const c = s[i]!;
    if (c === "|") {
      cells.push(cell.replace(/\s+/g, " ").trim());
      cell = "";
      if (taken > limit) return cells;
      continue;
    }
    if (c === "\\" && (s[i + 1] === "|" || s[i + 1] === "\\")) cell += s[++i];
    else cell += c;
    taken++;
  }
  // A row without its closing bar (GFM allows it) still has its last cell.
  if (cell.trim()) cells.push(cell.replace(/\s+/g, " ").trim());
  return cells;
}

/** "Header: value; Header: value" over the non-empty cells, a bare value under an empty header. */
function rowItem(header: string[], cells: string[]): string | null {
  const parts: string[] = [];
  for (let i = 0; i < cells.length; i++) {
    if (!cells[i]) continue;
    parts.push(header[i] ? `${header[i]}: ${cells[i]}` : cells[i]!);
  }
  return parts.length ? parts.join("; ") : null;
}

/** The end (index of the closing quote) of the JSON string starting at s[i] === '"', or -1. */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === "\\") j++;
    else if (c === '"') return j;
  }
  return -1;
}

/** A JSON string token's text, or the token without its quotes when it does not parse. */
function unquote(token: string): string {
  try {
    const v: unknown = JSON.parse(token);
    if (typeof v === "string") return v;
  } catch {
    // not valid JSON string syntax: keep what is between the quotes
  }
  return token.slice(1, -1);
}

const isOpener = (c: number) => c === 0x5b || c === 0x7b; // [ {
const isCloser = (c: number) => c === 0x5d || c === 0x7d || c === 0x2c; // ] } ,
const isComma = (c: number) => c === 0x2c;
const JSON_START = '"[]{},';

/** s without opening brackets and braces (and whitespace) in front. */
function dropOpeners(s: string): string {
  let a = 0;
  while (a < s.length && (isOpener(s.charCodeAt(a)) || isSpace(s, a))) a++;
  return s.slice(a);
}

/**
 * One trimmed line of code as a summary item, or null when it says nothing (only brackets, braces,
 * commas and the like). JSON members read as text: `"name": "Alice",` is `name: Alice`; a member that
 * only opens an object or array (`"address": {`) is left to the lines that follow.
 */
export function codeItem(line: string): string | null {
  // Brackets go only around JSON-like lines: `f(x[0]) // {a: [1]}` is code to keep as it is.
  const json = line[0] !== undefined && JSON_START.includes(line[0]);
  let b = line.length;
  const drop = json ? isCloser : isComma;
  while (b > 0 && (drop(line.charCodeAt(b - 1)) || isSpace(line, b - 1))) b--;
  const s = json ? dropOpeners(line.slice(0, b)) : line.slice(0, b);
  if (!HAS_WORD.test(s)) return null;
  if (s[0] !== '"') return s.replace(/\s+/g, " ");
  const end = stringEnd(s, 0);
  if (end < 0) return s.replace(/\s+/g, " ");
  let k = end + 1;
  while (k < s.length && isBlank(s.charCodeAt(k))) k++;
  let text: string;
  if (k === s.length) text = unquote(s);
  else if (s[k] !== ":") text = s;
  else {
    const key = unquote(s.slice(0, end + 1));
    let value = dropOpeners(s.slice(k + 1));
    if (!HAS_WORD.test(value)) return null;
    if (value[0] === '"' && stringEnd(value, 0) === value.length - 1) value = unquote(value);
    text = key ? `${key}: ${value}` : value;
  }
  text = text.replace(/\s+/g, " ").trim();
  return HAS_WORD.test(text) ? text : null;
}

/** The prose and the table/code items of markdown, in one pass over its lines. */
export function splitBlocks(md: string, maxItems: number, itemChars: number): Blocks {
  const items: string[] = [];
  const room = () => items.length < maxItems;
  const prose: string[] = [];
  let kept = 0; // md[kept, p) is still to be copied into prose
  let fence = 0; // backticks of the open code fence, 0 outside code
  let fenceStart = 0;
  let prevTable = false; // the line before was a table line
  let header: string[] | null = null; // the current table's header, once its delimiter row is seen
  let candidate = -1; // where a first table line starts (its end in candidateEnd): a header if a delimiter follows
  let candidateEnd = -1;
  const n = md.length;
  for (let p = 0; p <= n; ) {
    let e = p;
    while (e < n && !isLineEnd(md.charCodeAt(e))) e++;
    const next = e < n && md.charCodeAt(e) === 0x0d && md.charCodeAt(e + 1) === 0x0a ? e + 2 : e + 1;
    // The line without the whitespace around it is md[a, b).
    let a = p;
    while (a < e && isSpace(md, a)) a++;
    let b = e;
    while (b > a && isSpace(md, b - 1)) b--;

    if (fence) {
      const t = a < b && md.charCodeAt(a) === BACKTICK ? ticksAt(md, a, b) : 0;
      if (t >= fence && a + t === b && blankTo(md, p, a)) {
        // The closing fence: the block, from its opening fence to here, becomes "\n".
        prose.push(md.slice(kept, fenceStart), "\n");
        kept = a + t;
        fence = 0;
      } else if (room()) {
        const item = codeItem(md.slice(a, b));
        if (item) items.push(item);
      }
      p = next;
      continue;
    }

    // An opening fence: three or more backticks at the line start, no backtick after them
    // ("```x``` more" is inline code, not a fence).
    const ticks = a < b && blankTo(md, p, a) && md.charCodeAt(a) === BACKTICK ? ticksAt(md, a, e) : 0;
    if (ticks >= 3 && !hasBacktick(md, a + ticks, e)) {
      fence = ticks;
      fenceStart = a;
      prevTable = false;
      header = null;
      candidate = -1;
      p = next;
      continue;
    }

    const startsBar = a < b && md.charCodeAt(a) === BAR;
    const endsBar = b - a >= 2 && md.charCodeAt(b - 1) === BAR;
    if (startsBar || (prevTable && endsBar)) {
      // stripMarkdown drops rows from "|" to "|"; a table line without both bars that goes on a
      // table, or ends the input (a row cut short), is emptied here so no "| 7" is left as text.
      if ((prevTable || next > n) && !(startsBar && endsBar)) {
        prose.push(md.slice(kept, p));
        kept = e;
      }
      if (startsBar && room()) {
        if (header) {
          const item = rowItem(header, rowCells(md, a, b, itemChars));
          if (item) items.push(item);
        } else if (candidate >= 0 && prevTable && isDelimiterRow(md, a, b)) {
          header = rowCells(md, candidate, candidateEnd);
          candidate = -1;
        } else {
          candidate = a;
          candidateEnd = b;
        }
      }
      prevTable = true;
    } else {
      prevTable = false;
      header = null;
      candidate = -1;
    }
    p = next;
  }
  prose.push(fence ? md.slice(kept, fenceStart) + "\n" : md.slice(kept));
  return { prose: prose.join(""), items };
}
