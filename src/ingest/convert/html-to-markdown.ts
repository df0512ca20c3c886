import { decodeEntities, END, Scanner, TEXT } from "./html-tokenizer.ts";
import { MarkdownWriter } from "./markdown-writer.ts";

// HTML → markdown driven by the token stream with an explicit stack of open elements. Only the state that
// changes the output (lists, tables, pre, headings, dropped subtrees) lives on the stack, and end tags with
// no open match are ignored in O(1) via per-name index stacks, so deep or malformed nesting stays linear.

const VOID = new Set([
  "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
]);
const DROP = new Set([
  "script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object", "canvas", "select",
  "textarea", "title", "button", "noembed", "noframes", "xmp",
]);
const BLOCK = new Set([
  "p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "blockquote", "figure",
  "figcaption", "address", "details", "summary", "form", "fieldset", "dl", "dt", "dd", "center", "body", "html",
  "caption", "legend", "hgroup", "ul", "ol", "li", "table", "tr", "td", "th", "thead", "tbody", "tfoot", "pre",
  "h1", "h2", "h3", "h4", "h5", "h6",
]);
/** Opening one of these implicitly closes an open element of the listed names (tolerant HTML). */
const IMPLICIT_CLOSE = new Map<string, string[]>([
  ["li", ["li"]], ["dt", ["dt", "dd"]], ["dd", ["dt", "dd"]], ["tr", ["tr", "td", "th"]], ["td", ["td", "th"]],
  ["th", ["td", "th"]], ["p", ["p"]], ["option", ["option"]],
]);
/** These elements bound the search for an element to close implicitly (a nested list/table starts fresh). */
const SCOPE = new Set(["ul", "ol", "table", "dl"]);

export function htmlToMarkdown(html: string, maxTableChars = Number.POSITIVE_INFINITY): string {
  const w = new MarkdownWriter(maxTableChars);
  const stack: string[] = [];
  // Stack indices of the open elements, per name, and of the open SCOPE elements: the element an opening
  // tag closes implicitly is found from the tops of these in O(1). Walking the stack instead cost its
  // whole depth per tag: "<table>", 100k "<b>", then "<p><dt>" pairs took 31 s for 400 KB, quadratic.
  const openAt = new Map<string, number[]>();
  const scopes: number[] = [];
  let dropDepth = 0;

  const topOf = (name: string) => {
    const at = openAt.get(name);
    return at && at.length ? at[at.length - 1]! : -1;
  };
  const push = (name: string) => {
    let at = openAt.get(name);
    if (!at) openAt.set(name, (at = []));
    at.push(stack.length);
    if (SCOPE.has(name)) scopes.push(stack.length);
    stack.push(name);
  };
  const pop = () => {
    const name = stack.pop()!;
    openAt.get(name)!.pop();
    if (SCOPE.has(name)) scopes.pop();
    if (DROP.has(name)) dropDepth--;
    else if (dropDepth === 0) onEnd(w, name);
  };
  /** Pops every element above index k, then k itself. */
  const popTo = (k: number) => {
    while (stack.length > k) pop();
  };

  // The Scanner, not tokenize(): no token object, attributes object or name string per tag (30 MB of tags).
  for (const tok = new Scanner(html, false); tok.next(); ) {
    if (tok.kind === TEXT) {
      if (dropDepth === 0) w.text(decodeEntities(tok.text));
      continue;
    }
    const name = tok.name;
    if (tok.kind === END) {
      if (!VOID.has(name)) {
        const k = topOf(name);
        if (k >= 0) popTo(k);
      }
      continue;
    }
    // a Map, not an object literal: a <constructor> tag must not find Object's constructor
    const closes = IMPLICIT_CLOSE.get(name);
    if (closes) {
      // the nearest open element to close, unless a scope element opened after it
      let k = -1;
      for (const c of closes) k = Math.max(k, topOf(c));
      if (k >= 0 && k > (scopes.length ? scopes[scopes.length - 1]! : -1)) popTo(k);
    }
    if (VOID.has(name) || (tok.selfClosing && !DROP.has(name))) {
      if (dropDepth === 0) onVoid(w, name, tok);
      continue;
    }
    if (tok.selfClosing) continue;
    push(name);
    if (DROP.has(name)) dropDepth++;
    else if (dropDepth === 0) onStart(w, name, tok);
  }
  while (stack.length) pop();
  return w.finish();
}

function onStart(w: MarkdownWriter, name: string, tag: Scanner): void {
  if (/^h[1-6]$/.test(name)) return w.startHeading(Number(name[1]));
  switch (name) {
    case "ul": return w.startList(false);
    case "ol": return w.startList(true, Number(tag.attr("start")) || 1);
    case "li": return w.startItem();
    case "table": return w.startTable();
    case "tr": return w.startRow();
    case "td": case "th": return w.startCell();
    case "pre": return w.startPre();
    case "blockquote": return w.startQuote();
  }
  if (BLOCK.has(name)) w.blockBreak();
}

function onEnd(w: MarkdownWriter, name: string): void {
  if (/^h[1-6]$/.test(name)) return w.endHeading();
  switch (name) {
    case "ul": case "ol": return w.endList();
    case "li": return w.endItem();
    case "table": return w.endTable();
    case "tr": return w.endRow();
    case "td": case "th": return w.endCell();
    case "pre": return w.endPre();
    case "blockquote": return w.endQuote();
  }
  if (BLOCK.has(name)) w.blockBreak();
}

function onVoid(w: MarkdownWriter, name: string, tag: Scanner): void {
  if (name === "br") w.lineBreak();
  else if (name === "hr") w.blockBreak();
  else if (name === "img") {
    const alt = tag.attr("alt");
    if (alt) w.text(` ${alt} `);
  }
}
