// Cutting a long DOCX body into slices that mammoth converts one at a time. mammoth builds the whole
// document (XML tree, document model, HTML tree) before writing a byte: 200,000 short paragraphs took
// over 2 GiB, past the worker's 1 GiB memory limit. Each slice is the same document.xml with only part of the
// body's children, and the concatenated HTML is the whole document's HTML when every cut falls where
// mammoth carries nothing from one paragraph to the next (see isCutBefore); only footnote and endnote
// numbers, counted per conversion, are stitched afterwards (stitchNotes).

const MAIN_NAMESPACES = [
  "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
  "http://purl.oclc.org/ooxml/wordprocessingml/main",
];

/**
 * A tag (group 1 "/" for an end tag, 2 the name, 3 "/" when self-closing), or the opening of a
 * comment, CDATA section or processing instruction (group 4), whose end is then found by indexOf.
 * No part of it crosses a "<" (XML allows none inside a tag), so a malformed file is scanned once,
 * not once per "<".
 */
const MARKUP_RE = /<(?:(\/?)([^\s/>!?<]+)(?:[^<>"']|"[^"<]*"|'[^'<]*')*?(\/?)>|(!--|!\[CDATA\[|\?))/g;
const MARKUP_ENDS: Record<string, string> = { "!--": "-->", "![CDATA[": "]]>", "?": "?>" };

export interface SlicePlan {
  /** The document up to and including the body's start tag. */
  prefix: string;
  /** From the body's end tag to the end of the document. */
  suffix: string;
  /** [start, end) offsets of each slice's body children in the document text. */
  slices: Array<[number, number]>;
}

interface Child { start: number; end: number }
interface Children { prefix: string; suffix: string; children: Child[] }

/**
 * The children of the body (`container` "w:body") or of the root element (null), with the text
 * before and after them; null when the part is not laid out as expected (then it is not cut).
 */
function childrenOf(xml: string, container: "w:body" | null): Children | null {
  const level = container ? 2 : 1;
  MARKUP_RE.lastIndex = 0;
  let depth = 0;
  let open = -1;
  let childStart = -1;
  const children: Child[] = [];
  const found = (end: number) => ({ prefix: xml.slice(0, open), suffix: xml.slice(end), children });
  for (let m = MARKUP_RE.exec(xml); m; m = MARKUP_RE.exec(xml)) {
    if (m[4] !== undefined) {
      const end = xml.indexOf(MARKUP_ENDS[m[4]]!, MARKUP_RE.lastIndex);
      if (end < 0) return null;
      MARKUP_RE.lastIndex = end;
      continue;
    }
    const name = m[2]!;
    if (m[1] === "/") {
      depth--;
      if (depth < 1) return container === null && depth === 0 ? found(m.index) : null;
      if (open < 0) continue;
      if (depth === level) children.push({ start: childStart, end: MARKUP_RE.lastIndex });
      if (container !== null && depth === 1) return name === container ? found(m.index) : null;
      continue;
    }
    const selfClosing = m[3] === "/";
    if (depth === 0) {
      // mammoth knows the main namespace under any prefix; this cutter looks for "w:" names only
      const ns = /\sxmlns:w\s*=\s*["']([^"']*)["']/.exec(m[0])?.[1];
      if (!ns || !MAIN_NAMESPACES.includes(ns) || selfClosing || !onlyWNamesMain(xml)) return null;
      if (container === null) open = MARKUP_RE.lastIndex;
    } else if (depth === 1 && name === container) {
      if (selfClosing) return null;
      open = MARKUP_RE.lastIndex;
    } else if (depth === level && open >= 0) {
      if (selfClosing) children.push({ start: m.index, end: MARKUP_RE.lastIndex });
      else childStart = m.index;
    }
    if (!selfClosing) depth++;
  }
  return null;
}

const NS_DECL_RE = /\sxmlns(?::([^\s=<>]*))?\s*=\s*["']([^"'<]*)["']/g;

/**
 * Whether the main namespace is bound to no prefix but w: (nor made the default namespace) anywhere
 * in the part: the cutter reads "w:" names, and mammoth reads the namespace under whatever prefix
 * binds it, so an "<x:footnoteReference>" or "<x:pStyle>" under a second binding would be invisible
 * here and cut through (a slice without the note it refers to, a list split in two).
 */
function onlyWNamesMain(xml: string): boolean {
  for (const m of xml.matchAll(NS_DECL_RE)) if (m[1] !== "w" && MAIN_NAMESPACES.includes(m[2]!)) return false;
  return true;
}

const ID_RE = /^<[^<>]*?\sw:id\s*=\s*["']([^"'<]*)["']/;

/**
 * A part of footnotes, endnotes or comments cut down to the ones a slice refers to: mammoth reads
 * every note and comment of the document for each slice, and a long document's notes were as
 * heavy to hold as its body.
 */
export class NotesPart {
  private constructor(private readonly xml: string, private readonly parts: Children) {}

  static of(xml: string | null): NotesPart | null {
    const parts = xml === null ? null : childrenOf(xml, null);
    return parts && new NotesPart(xml!, parts);
  }

  get length(): number {
    return this.xml.length;
  }

  with(ids: Set<string>): string {
    const kept: string[] = [];
    for (const c of this.parts.children) {
      const text = this.xml.slice(c.start, c.end);
      const id = ID_RE.exec(text)?.[1];
      if (id !== undefined && ids.has(id)) kept.push(text);
    }
    return this.parts.prefix + kept.join("") + this.parts.suffix;
  }
}

/** The ids of the notes or comments a slice of the body refers to ("footnote", "endnote", "comment"). */
export function referencedIds(body: string, kind: "footnote" | "endnote" | "comment"): Set<string> {
  const ids = new Set<string>();
  const re = new RegExp(`<w:${kind}Reference\\s[^<>]*?w:id\\s*=\\s*["']([^"'<]*)["']`, "g");
  for (const m of body.matchAll(re)) ids.add(m[1]!);
  return ids;
}

/** Paragraph styles that make a paragraph a list item (named by numbering levels, or holding numbering themselves). */
export function listStyleIds(numberingXml: string | null, stylesXml: string | null): Set<string> {
  const ids = new Set<string>();
  for (const m of (numberingXml ?? "").matchAll(PSTYLE_RE)) ids.add(m[1]!);
  for (const style of (stylesXml ?? "").split("</w:style>")) {
    const at = style.lastIndexOf("<w:style ");
    const id = at < 0 ? undefined : /^<w:style\s[^<>]*?w:styleId\s*=\s*["']([^"'<]*)["']/.exec(style.slice(at))?.[1];
    if (id !== undefined && style.includes("numPr", at)) ids.add(id);
  }
  return ids;
}

const FIELD_RE = /w:fldCharType\s*=\s*["'](begin|end)["']/g;
const DELETED_RE = /<w:del[\s>/]/;
const PSTYLE_RE = /<w:pStyle\s[^<>]*?w:val\s*=\s*["']([^"'<]*)["']/g;
const VISIBLE_TEXT_RE = /<w:t(?:\s[^<>]*)?>[^<]*?[^\s<]/;

/**
 * Whether the whole document's HTML can be the two slices' HTML one after the other when cut
 * before `next`. mammoth merges an element into the one before it when it is not "fresh" (a list into the
 * list before it, across empty paragraphs), joins a paragraph whose mark is deleted to the next
 * paragraph it reads, and keeps a complex field open from its begin to its end character across paragraphs. So
 * a cut goes before a paragraph that starts a fresh element of its own: not a list item, with
 * visible text in a run of no character style (a style can map a run to nothing), nothing deleted
 * or moved in it. The caller (planSlices) adds what depends on the elements before: no field
 * open, and no deleted mark waiting for a paragraph.
 */
function isCutBefore(next: string, listStyles: Set<string>): boolean {
  if (!/^<w:p[\s>]/.test(next)) return false;
  const startTag = next.slice(0, next.indexOf(">") + 1);
  if (startTag.includes("xmlns")) return false;
  if (next.includes("numPr") || DELETED_RE.test(next) || next.includes("moveFrom") || next.includes("AlternateContent")) return false;
  PSTYLE_RE.lastIndex = 0;
  const style = PSTYLE_RE.exec(next)?.[1];
  if (style !== undefined && listStyles.has(style)) return false;
  // each run is the text from its start tag to its end tag; split, not matched, to stay linear
  for (const piece of next.split("</w:r>")) {
    const at = Math.max(piece.lastIndexOf("<w:r>"), piece.lastIndexOf("<w:r "));
    if (at < 0) continue;
    const run = piece.slice(at);
    if (!run.includes("rStyle") && VISIBLE_TEXT_RE.test(run)) return true;
  }
  return false;
}

/**
 * The slices of a document whose text is longer than `sliceChars`, each about that long; a slice
 * grows past it until a safe cut (isCutBefore), and is cut anyway at `maxSliceChars` (a list of that
 * length is then joined again across the cut: joinListsAtCut), though not while a deleted mark's runs wait for a
 * paragraph: they would be lost at the end of the slice. Null when the document is not sliced.
 */
export function planSlices(xml: string, sliceChars: number, listStyles: Set<string>, maxSliceChars = 4 * sliceChars): SlicePlan | null {
  if (xml.length <= sliceChars) return null;
  const body = childrenOf(xml, "w:body");
  if (!body || body.children.length < 2) return null;
  const { children } = body;
  const slices: Array<[number, number]> = [];
  let from = 0;
  let openFields = 0;
  let heldDeleted = false;
  for (let i = 0; i < children.length; i++) {
    const c = children[i]!;
    const size = c.start - children[from]!.start;
    if (i > from && size >= sliceChars) {
      const text = xml.slice(c.start, c.end);
      if (!heldDeleted && (size >= maxSliceChars || (openFields === 0 && isCutBefore(text, listStyles)))) {
        slices.push([children[from]!.start, c.start]);
        from = i;
      }
    }
    // mammoth ignores an end character with no field open; so does this count
    FIELD_RE.lastIndex = 0;
    const chunk = xml.slice(c.start, c.end);
    // a deleted mark's runs wait for the next paragraph mammoth reads, across bookmarks, tables and
    // the like: only a body-level paragraph with nothing deleted surely takes them
    if (DELETED_RE.test(chunk)) heldDeleted = true;
    else if (/^<w:p[\s>]/.test(chunk) && !chunk.includes("moveFrom")) heldDeleted = false;
    if (chunk.includes("fldCharType")) {
      for (const f of chunk.matchAll(FIELD_RE)) openFields = f[1] === "begin" ? openFields + 1 : Math.max(0, openFields - 1);
    }
  }
  slices.push([children[from]!.start, children[children.length - 1]!.end]);
  if (slices.length < 2) return null;
  return { prefix: body.prefix, suffix: body.suffix, slices };
}

const NOTE_REF_RE = /<sup><a href="#(footnote|endnote)-([^"]*)" id="\1-ref-\2">\[(\d+)\]<\/a><\/sup>/g;

/**
 * One slice's HTML with its note references numbered after the `before` references of earlier
 * slices, and the list of the notes it references cut off its end: mammoth numbers references from
 * 1 in each conversion and lists the referenced notes after the last element, so the slices' lists
 * are joined into one at the end of the document, as a conversion of the whole would place it.
 */
export function stitchNotes(html: string, before: number): { body: string; notes: string; refs: number } {
  let first: string | null = null;
  let refs = 0;
  const renumbered = html.replace(NOTE_REF_RE, (_all, type: string, id: string, n: string) => {
    first ??= `<ol><li id="${type}-${id}">`;
    refs++;
    return `<sup><a href="#${type}-${id}" id="${type}-ref-${id}">[${Number(n) + before}]</a></sup>`;
  });
  if (first === null) return { body: renumbered, notes: "", refs: 0 };
  const at = renumbered.lastIndexOf(first);
  if (at < 0 || !renumbered.endsWith("</ol>")) return { body: renumbered, notes: "", refs };
  return { body: renumbered.slice(0, at), notes: renumbered.slice(at + 4, -5), refs };
}

const LIST_TAG_RE = /<(\/?)(ol|ul|li)>/g;
/** The list whose last item's and own end tags end `html` at `end`, if any. */
const closedList = (html: string, end: number) =>
  html.endsWith("</li></ol>", end) ? "ol" : html.endsWith("</li></ul>", end) ? "ul" : null;

/**
 * The HTML of two slices joined as a conversion of the whole would have it when a forced cut
 * (planSlices) falls inside a list; null when `before` does not end with a list or `after` does not
 * start with one (nothing to join, the HTML is kept as it is). Converted on its own, the slice after
 * the cut opened a list of its own, numbered from 1 again ("step 14" became "1.").
 *
 * mammoth (its default style map, the only one a sliced file has) writes a list paragraph of level
 * d as a path of d lists with an item in each: the item of the last is new ("fresh"), and the list
 * holding it is `ol` or `ul` as the paragraph's numbering says; the lists and items above it are
 * not new and match a list of either kind. Each paragraph then joins the last element before it
 * where the path matches, level by level from the top. Those paths can be read back from a slice's
 * HTML: an item holding text is a paragraph's own item, and the kinds of the lists above it are
 * what it asked for or matched anyway. So the lists at the start of `after` are taken apart into
 * their paragraphs and joined again, one after the other, to the lists left open at the end of
 * `before`. (A wrapper a slice created itself is `ul`, as mammoth names a list of either kind.)
 */
export function joinListsAtCut(before: string, after: string): { before: string; after: string } | null {
  // the lists open at the end of `before`, outermost first (its end tag is last), each with its last item open
  const open: string[] = [];
  let end = before.length;
  for (let tag = closedList(before, end); tag; tag = closedList(before, end)) {
    open.push(tag);
    end -= `</li></${tag}>`.length;
  }
  if (open.length === 0 || !/^<(ol|ul)>/.test(after)) return null;
  const paragraphs = listParagraphs(after);
  if (!paragraphs) return null;
  const out: string[] = [];
  const close = (depth: number) => {
    while (open.length > depth) out.push(`</li></${open.pop()}>`);
  };
  for (const { lists, content } of paragraphs.items) {
    const d = lists.length;
    let m = 0;
    while (m < d && m < open.length && (m < d - 1 || open[m] === lists[m])) m++;
    if (m === d) {
      close(d);
      out.push(`</li><li>${content}`);
      continue;
    }
    close(m);
    for (let j = m; j < d; j++) {
      const tag = j < d - 1 ? "ul" : lists[j]!;
      open.push(tag);
      out.push(`<${tag}><li>${j < d - 1 ? "" : content}`);
    }
  }
  close(0);
  return { before: before.slice(0, end), after: out.join("") + after.slice(paragraphs.end) };
}

/**
 * The list paragraphs of the lists `html` starts with (up to the first other element), each as the
 * kinds of the lists holding its item and the item's content; null when the lists hold anything
 * but items, lists and the items' text before their nested lists (not mammoth's writing).
 */
function listParagraphs(html: string): { items: Array<{ lists: string[]; content: string }>; end: number } | null {
  const items: Array<{ lists: string[]; content: string }> = [];
  const stack: string[] = [];
  const lists: string[] = [];
  const startsList = (at: number) => html.startsWith("<ol>", at) || html.startsWith("<ul>", at);
  let at = 0;
  LIST_TAG_RE.lastIndex = 0;
  for (let m = LIST_TAG_RE.exec(html); m; m = LIST_TAG_RE.exec(html)) {
    if (m.index !== at) return null;
    const name = m[2]!;
    at = LIST_TAG_RE.lastIndex;
    if (m[1] === "/") {
      if (stack.pop() !== name) return null;
      if (name !== "li") lists.pop();
      if (stack.length === 0 && !startsList(at)) return { items, end: at };
      continue;
    }
    // lists hold items, items hold lists (the top of an empty stack takes a list)
    const inList = stack.length > 0 && stack[stack.length - 1] !== "li";
    if ((name === "li") !== inList) return null;
    stack.push(name);
    if (name !== "li") lists.push(name);
    else if (!startsList(at)) {
      // an item holding text first is a paragraph's own; its text runs to the next list tag
      const next = LIST_TAG_RE.exec(html);
      if (!next) return null;
      items.push({ lists: [...lists], content: html.slice(at, next.index) });
      at = next.index;
      LIST_TAG_RE.lastIndex = at;
    }
  }
  return null;
}
