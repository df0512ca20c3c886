/*
 * Markdown → typed elements, the input of the chunker.
 *
 * One pass over the lines, no recursion, and every per-line test only inspects a bounded prefix or
 * uses plain string methods, so a 10 MB single-line input stays linear.
 *
 * Choices: list-item text drops the bullet (as unstructured does) but keeps an ordered number
 * ("3. text") because questions often refer to steps by number; nested items are separate
 * ListItems; indented code blocks are not recognised (converted PDF/plain text often has leading
 * spaces that are not code); blockquote markers are stripped and the text read as paragraphs.
 */

export type ElementType =
  | "Title"
  | "NarrativeText"
  | "ListItem"
  | "Table"
  | "CodeSnippet"
  | "Text"
  | "PageBreak";

export interface Element {
  type: ElementType;
  text: string;
  page?: number;
  /** Heading level, for Title only. */
  level?: number;
}

/** A converter writes this line before the content of each page of a paged format. */
export const PAGE_MARKER_RE = /^<!-- page (\d+) -->$/;

const ATX_RE = /^ {0,3}(#{1,6})(?=[ \t]|$)/;
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;
const BULLET_RE = /^([ \t]*)([-*+])(?:[ \t]+|$)/;
const ORDERED_RE = /^([ \t]*)(\d{1,9})([.)])(?:[ \t]+|$)/;
const SETEXT_H1_RE = /^ {0,3}=+[ \t]*$/;
const SETEXT_H2_RE = /^ {0,3}-+[ \t]*$/;
const QUOTE_RE = /^ {0,3}>[ \t]?/;
const DELIM_CELL_RE = /^:?-+:?$/;

function isBlank(line: string): boolean {
  return line.trim() === "";
}

// Characters that can open a block construct; other lines skip the per-line regexes.
const BLOCK_LEAD = new Set(["<", "`", "~", "#", "=", "-", "*", "_", "+", ">", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);

/** Thematic break: three or more of one of - * _ with only spaces/tabs between. */
function isRule(line: string, lead: string): boolean {
  if (lead !== "-" && lead !== "*" && lead !== "_") return false;
  let n = 0;
  for (let k = 0; k < line.length; k++) {
    const c = line[k];
    if (c === lead) n++;
    else if (c !== " " && c !== "\t") return false;
  }
  return n >= 3 && line.length - line.trimStart().length <= 3;
}

/** Reads the cells in place: splitting a 50 MB delimiter row of a 5-million-column CSV made an array of them all. */
function isDelimiterRow(line: string): boolean {
  if (!line.includes("-")) return false;
  let t = line.trim();
  if (!t.includes("|")) return false;
  if (t.startsWith("|")) t = t.slice(1);
  if (t.endsWith("|")) t = t.slice(0, -1);
  for (let from = 0; ; ) {
    const bar = t.indexOf("|", from);
    const end = bar < 0 ? t.length : bar;
    if (!DELIM_CELL_RE.test(t.slice(from, end).trim())) return false;
    if (bar < 0) return true;
    from = bar + 1;
  }
}

function atxText(line: string, hashes: number): string {
  let t = line.trimStart().slice(hashes).trim();
  // A closing run of '#' is decoration only when separated by whitespace (or the whole text).
  let end = t.length;
  while (end > 0 && t[end - 1] === "#") end--;
  if (end === 0) return "";
  if (end < t.length && (t[end - 1] === " " || t[end - 1] === "\t")) t = t.slice(0, end).trimEnd();
  return t;
}

/** Split markdown into reading-ordered elements, tracking the page from page-marker lines. */
export function markdownToElements(markdown: string): Element[] {
  return [...elementsOf(markdown)];
}

/**
 * markdownToElements as they are found, for the chunker to consume as it goes: the array of them
 * all, one object per heading or paragraph, was most of what parsing held. A 12 MB markdown file
 * of 3 million one-word headings built 717 MiB of elements and ended FAILED at the worker's 1 GiB
 * memory limit. Only the last element found is held back, since a following indented line may
 * still continue it (a list item).
 *
 * Lines are read in place, one at a time, and a paragraph, table or code block that is a run of
 * whole lines is cut out of the text in one slice: the array of every line (and of every line of
 * a paragraph) was most of what was left, 85 MB of plain text in 5 million lines took the worker
 * past 1.7 GiB.
 */
export function* elementsOf(markdown: string): Generator<Element> {
  // The same lines as split(/\r\n|\r|\n/), so a run of lines is one slice of the text.
  const text = markdown.includes("\r") ? markdown.replace(/\r\n?/g, "\n") : markdown;
  const n = text.length;
  // The line starting at `pos` ends at lineEnd(pos); the text's lines start at 0 and after each "\n"
  // (a final "\n" opens an empty last line, as split gives), so `pos > n` means no line is left.
  const lineEnd = (at: number) => {
    const e = text.indexOf("\n", at);
    return e < 0 ? n : e;
  };
  let pos = 0;
  // The first '|' at or after the line being read (n + 1 when none): found once for many lines.
  let bar = -1;
  const hasBar = (ls: number, le: number) => {
    if (bar < ls) {
      bar = text.indexOf("|", ls);
      if (bar < 0) bar = n + 1;
    }
    return bar < le;
  };
  let out: Element[] = [];
  let page: number | undefined;
  // The paragraph so far: runs of whole lines [runStart, runEnd) of the text, joined by "\n" (a
  // quoted line, its marker stripped, is a run of its own), and its number of lines.
  let paraRuns: string[] = [];
  let runStart = -1;
  let runEnd = -1;
  let paraLines = 0;
  let paraPage: number | undefined;
  let item: { text: string[]; page: number | undefined } | null = null;
  // After a blank line, an indented line still belongs to the list item above it.
  let lastWasItem = false;

  const push = (type: ElementType, text: string, p: number | undefined, level?: number) => {
    if (text.trim() === "") return;
    const el: Element = { type, text };
    if (p !== undefined) el.page = p;
    if (level !== undefined) el.level = level;
    out.push(el);
  };
  const paraText = () => {
    if (runStart >= 0) paraRuns.push(text.slice(runStart, runEnd));
    runStart = -1;
    const t = paraRuns.length === 1 ? paraRuns[0]! : paraRuns.join("\n");
    paraRuns = [];
    paraLines = 0;
    return t;
  };
  const flushPara = () => {
    if (paraLines) push("NarrativeText", paraText(), paraPage);
  };
  const flushItem = () => {
    if (item) push("ListItem", item.text.join(" "), item.page);
    item = null;
  };
  const flush = () => {
    flushPara();
    flushItem();
  };

  while (pos <= n) {
    if (out.length > 64) {
      const last = out.pop()!;
      yield* out;
      out = [last];
    }
    const start = pos;
    const end = lineEnd(pos);
    pos = end + 1;
    // Most lines are blank or plain text: told apart without a string of their own (a slice per line
    // of millions is garbage the collector lets pile up).
    let k = start;
    while (k < end && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
    if (k === end) {
      if (item) lastWasItem = true;
      flush();
      continue;
    }
    const lead = text[k]!;
    if (!BLOCK_LEAD.has(lead) && !hasBar(start, end)) {
      plain(null, start, end);
      continue;
    }
    let line = text.slice(start, end);
    const pm = PAGE_MARKER_RE.exec(line);
    if (pm) {
      flush();
      lastWasItem = false;
      page = Number(pm[1]);
      continue;
    }
    if (isBlank(line)) {
      if (item) lastWasItem = true;
      flush();
      continue;
    }

    const fence = FENCE_RE.exec(line);
    if (fence) {
      flush();
      lastWasItem = false;
      const marker = fence[1]!;
      const startPage = page;
      // The body's lines, page-marker lines left out: runs of whole lines between markers.
      const runs: string[] = [];
      let from = -1;
      let to = -1;
      while (pos <= n) {
        const ls = pos;
        const le = lineEnd(pos);
        pos = le + 1;
        // A page marker starts with '<', a closing fence with a space, '`' or '~'.
        const c = text.charCodeAt(ls);
        if (c !== 60 && c !== 32 && c !== 96 && c !== 126) {
          if (from < 0) from = ls;
          to = le;
          continue;
        }
        const l = text.slice(ls, le);
        const m = PAGE_MARKER_RE.exec(l);
        if (m) {
          page = Number(m[1]);
          if (from >= 0) runs.push(text.slice(from, to));
          from = -1;
          continue;
        }
        const close = FENCE_RE.exec(l);
        if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length && l.trim() === close[1]) break;
        if (from < 0) from = ls;
        to = le;
      }
      if (from >= 0) runs.push(text.slice(from, to));
      push("CodeSnippet", runs.join("\n"), startPage);
      continue;
    }

    const atx = ATX_RE.exec(line);
    if (atx) {
      flush();
      lastWasItem = false;
      push("Title", atxText(line, atx[1]!.length), page, atx[1]!.length);
      continue;
    }

    if (paraLines && !item) {
      if (SETEXT_H1_RE.test(line) || SETEXT_H2_RE.test(line)) {
        const level = line.trim()[0] === "=" ? 1 : 2;
        // Its lines joined by " ": none holds a "\n".
        push("Title", paraText().replaceAll("\n", " ").trim(), paraPage, level);
        continue;
      }
    }

    if (isRule(line, lead)) {
      flush();
      lastWasItem = false;
      continue;
    }

    if (line.includes("|") && pos <= n && isDelimiterRow(text.slice(pos, lineEnd(pos)))) {
      flush();
      lastWasItem = false;
      // The header, the delimiter row and the rows after it that hold a '|': one slice of the text.
      let to = lineEnd(pos);
      pos = to + 1;
      while (pos <= n) {
        const le = lineEnd(pos);
        // A row starting with '|' is neither blank nor a page marker.
        if (text.charCodeAt(pos) !== 124) {
          const l = text.slice(pos, le);
          if (isBlank(l) || !l.includes("|") || PAGE_MARKER_RE.test(l)) break;
        }
        to = le;
        pos = le + 1;
      }
      push("Table", text.slice(start, to), page);
      continue;
    }

    const bullet = BULLET_RE.exec(line);
    const ordered = bullet ? null : ORDERED_RE.exec(line);
    if (bullet || ordered) {
      flush();
      lastWasItem = false;
      const m = (bullet ?? ordered)!;
      const rest = line.slice(m[0].length).trim();
      const text = ordered ? `${ordered[2]}${ordered[3]} ${rest}`.trimEnd() : rest;
      item = { text: text ? [text] : [], page };
      continue;
    }

    const q = QUOTE_RE.exec(line);
    if (q) {
      line = line.slice(q[0].length);
      plain(line, -1, -1);
    } else plain(line, start, end);
  }
  flush();
  yield* out;

  // A line that opens no block: list-item continuation or paragraph text. [ls, le) is where the
  // line lies in the text, or -1 when it is not a slice of it (`given`: a quote's marker was stripped).
  function plain(given: string | null, ls: number, le: number): void {
    const line = () => given ?? text.slice(ls, le);
    if (item) {
      item.text.push(line().trim());
      return;
    }
    if (lastWasItem && /^[ \t]{2,}/.test(line()) && out.length && out[out.length - 1]!.type === "ListItem") {
      const prev = out[out.length - 1]!;
      prev.text = `${prev.text} ${line().trim()}`;
      return;
    }
    lastWasItem = false;
    if (!paraLines) paraPage = page;
    paraLines++;
    if (ls >= 0 && runStart >= 0 && ls === runEnd + 1) {
      runEnd = le;
      return;
    }
    if (runStart >= 0) paraRuns.push(text.slice(runStart, runEnd));
    runStart = -1;
    if (ls >= 0) {
      runStart = ls;
      runEnd = le;
    } else paraRuns.push(line());
  }
}
