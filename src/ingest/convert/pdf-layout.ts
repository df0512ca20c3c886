import { escapeLineStart } from "./markdown-writer.ts";

// Turns positioned lines into markdown: headings from font size relative to the body text, paragraphs from
// vertical gaps, bullets from leading glyphs. PDF has no structure, so these are heuristics.

export interface PdfLine { text: string; x: number; y: number; size: number; chars: number }

const BULLET_RE = /^[•◦▪▫●○■□‣⁃∙·*–-]\s+/;
const MAX_HEADING_CHARS = 150;

/** Returns heading font sizes, largest first (index 0 → `#`), derived from the body size of the document. */
export function pickHeadingSizes(lines: PdfLine[]): number[] {
  const weight = new Map<number, number>();
  for (const l of lines) {
    const s = Math.round(l.size * 2) / 2;
    weight.set(s, (weight.get(s) ?? 0) + l.text.length);
  }
  let body = 0;
  let best = -1;
  for (const [s, w] of weight) if (w > best) { best = w; body = s; }
  const total = lines.reduce((n, l) => n + l.text.length, 0);
  const sizes = [...weight.keys()]
    .filter((s) => s >= body * 1.15 && s > 0)
    // a size used for a large share of the text is body text of a different kind, not headings
    .filter((s) => weight.get(s)! <= total * 0.3 || lines.length < 4)
    .sort((a, b) => b - a);
  return sizes.slice(0, 3);
}

function headingLevel(l: PdfLine, headings: number[]): number {
  if (l.text.length > MAX_HEADING_CHARS || !/\p{L}/u.test(l.text)) return 0;
  const s = Math.round(l.size * 2) / 2;
  const i = headings.indexOf(s);
  if (i >= 0) return i + 1;
  return headings.length && s > headings[0]! ? 1 : 0;
}

export function layoutPage(lines: PdfLine[], headings: number[]): string {
  const blocks: string[] = [];
  let para: string[] = [];
  let prev: PdfLine | null = null;
  let prevHeading = 0;
  const flush = () => {
    if (para.length) blocks.push(para.join("\n"));
    para = [];
  };
  for (const l of lines) {
    const level = headingLevel(l, headings);
    if (level) {
      if (prevHeading === level && prev && Math.abs(prev.y - l.y) < l.size * 1.6) {
        // a heading wrapped over two lines
        blocks[blocks.length - 1] += " " + l.text;
      } else {
        flush();
        blocks.push("#".repeat(level) + " " + l.text);
      }
      prevHeading = level;
      prev = l;
      continue;
    }
    const bullet = BULLET_RE.exec(l.text);
    const gap = prev ? prev.y - l.y : 0;
    const newPara = !prev || prevHeading > 0 || gap > l.size * 1.8 || gap < -l.size || bullet !== null;
    if (newPara) flush();
    if (bullet) para.push("- " + escapeLineStart(l.text.slice(bullet[0].length)));
    else if (para.length && para[para.length - 1]!.startsWith("- ") && !newPara) para[para.length - 1] += " " + l.text;
    else para.push(escapeLineStart(l.text));
    prevHeading = 0;
    prev = l;
  }
  flush();
  return blocks.join("\n\n");
}
