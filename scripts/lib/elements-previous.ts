// elementsOf and plainToMarkdown as they were before lines were read without an array of them (kept as the
// oracle that test/chunker/elements-same-as-previous.test.ts compares the current ones with, byte for byte).
import { decodeText } from "../../src/ingest/convert/text.ts";
import { escapeLineStart } from "../../src/ingest/convert/markdown-writer.ts";
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

type ElementType =
  | "Title"
  | "NarrativeText"
  | "ListItem"
  | "Table"
  | "CodeSnippet"
  | "Text"
  | "PageBreak";

interface Element {
  type: ElementType;
  text: string;
  page?: number;
  /** Heading level, for Title only. */
  level?: number;
}

/** A converter writes this line before the content of each page of a paged format. */
const PAGE_MARKER_RE = /^<!-- page (\d+) -->$/;

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

function leadChar(line: string): string {
  let k = 0;
  while (k < line.length && (line[k] === " " || line[k] === "\t")) k++;
  return line[k] ?? "";
}

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

function isDelimiterRow(line: string): boolean {
  if (!line.includes("-")) return false;
  let t = line.trim();
  const hadPipe = t.includes("|");
  if (t.startsWith("|")) t = t.slice(1);
  if (t.endsWith("|")) t = t.slice(0, -1);
  const cells = t.split("|");
  if (!hadPipe && cells.length < 2) return false;
  return cells.every((c) => DELIM_CELL_RE.test(c.trim()));
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
export function markdownToElementsPrevious(markdown: string): Element[] {
  return [...elementsOfPrevious(markdown)];
}

/**
 * markdownToElements as they are found, for the chunker to consume as it goes: the array of them
 * all, one object per heading or paragraph, was most of what parsing held. A 12 MB markdown file
 * of 3 million one-word headings built 717 MiB of elements and ended FAILED at the worker's 1 GiB
 * memory limit. Only the last element found is held back, since a following indented line may
 * still continue it (a list item).
 */
export function* elementsOfPrevious(markdown: string): Generator<Element> {
  const lines = markdown.includes("\r") ? markdown.split(/\r\n|\r|\n/) : markdown.split("\n");
  let out: Element[] = [];
  let page: number | undefined;
  let para: string[] = [];
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
  const flushPara = () => {
    if (para.length) push("NarrativeText", para.join("\n"), paraPage);
    para = [];
  };
  const flushItem = () => {
    if (item) push("ListItem", item.text.join(" "), item.page);
    item = null;
  };
  const flush = () => {
    flushPara();
    flushItem();
  };

  for (let i = 0; i < lines.length; i++) {
    if (out.length > 64) {
      const last = out.pop()!;
      yield* out;
      out = [last];
    }
    let line = lines[i]!;
    const lead = leadChar(line);
    if (lead === "") {
      if (item) lastWasItem = true;
      flush();
      continue;
    }
    if (!BLOCK_LEAD.has(lead) && !line.includes("|")) {
      plain(line);
      continue;
    }
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
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const l = lines[j]!;
        const m = PAGE_MARKER_RE.exec(l);
        if (m) {
          page = Number(m[1]);
          continue;
        }
        const close = FENCE_RE.exec(l);
        if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length && l.trim() === close[1]) break;
        body.push(l);
      }
      push("CodeSnippet", body.join("\n"), startPage);
      i = j;
      continue;
    }

    const atx = ATX_RE.exec(line);
    if (atx) {
      flush();
      lastWasItem = false;
      push("Title", atxText(line, atx[1]!.length), page, atx[1]!.length);
      continue;
    }

    if (para.length && !item) {
      if (SETEXT_H1_RE.test(line) || SETEXT_H2_RE.test(line)) {
        const level = line.trim()[0] === "=" ? 1 : 2;
        push("Title", para.join(" ").trim(), paraPage, level);
        para = [];
        continue;
      }
    }

    if (isRule(line, lead)) {
      flush();
      lastWasItem = false;
      continue;
    }

    if (line.includes("|") && i + 1 < lines.length && isDelimiterRow(lines[i + 1]!)) {
      flush();
      lastWasItem = false;
      const rows = [line, lines[i + 1]!];
      let j = i + 2;
      while (j < lines.length && !isBlank(lines[j]!) && lines[j]!.includes("|") && !PAGE_MARKER_RE.test(lines[j]!)) {
        rows.push(lines[j]!);
        j++;
      }
      push("Table", rows.join("\n"), page);
      i = j - 1;
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
    if (q) line = line.slice(q[0].length);
    plain(line);
  }
  flush();
  yield* out;

  // A line that opens no block: list-item continuation or paragraph text.
  function plain(line: string): void {
    if (item) {
      item.text.push(line.trim());
      return;
    }
    if (lastWasItem && /^[ \t]{2,}/.test(line) && out.length && out[out.length - 1]!.type === "ListItem") {
      const prev = out[out.length - 1]!;
      prev.text = `${prev.text} ${line.trim()}`;
      return;
    }
    lastWasItem = false;
    if (!para.length) paraPage = page;
    para.push(line);
  }
}

export function plainToMarkdownPrevious(bytes: Uint8Array): string {
  const text = decodeText(bytes).trim();
  if (!text) return "";
  return text.split("\n").map((l) => escapeLineStart(l.trimEnd())).join("\n") + "\n";
}
