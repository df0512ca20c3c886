/*
 * A large element's chunk text, its whitespace folded (each run of /\s/ → one space) as the splitter
 * reads it, a block at a time, instead of into a new string of the whole element first: one 85 MB
 * paragraph (plain text of 5 million lines) was folded by one regex replace into an 85 MB string (and
 * what the replace grows on its way) before any chunk was cut. The chunks are the same strings.
 */

/** Per UTF-16 code unit, 1 where /\s/ matches it (trim() strips the same set). */
let wsTable: Uint8Array | null = null;
function wsCodes(): Uint8Array {
  if (!wsTable) {
    wsTable = new Uint8Array(65536);
    for (let c = 0; c < 65536; c++) if (/\s/.test(String.fromCharCode(c))) wsTable[c] = 1;
  }
  return wsTable;
}

export function isWs(code: number): boolean {
  return wsCodes()[code] === 1;
}

/** What the splitter reads: a string, or a FoldedText (read forward only). */
export interface SplitSource {
  readonly length: number;
  slice(start: number, end: number): string;
  charCodeAt(i: number): number;
}

/** The part of a pre-chunk text that folding `raw[start, end)` gives, not yet made. */
export class FoldSegment {
  constructor(
    readonly raw: string,
    readonly start: number,
    readonly end: number,
    /** The length of the folded text. */
    readonly length: number,
  ) {}

  /** `raw.slice(start, end).trim().replace(/\s+/g, " ")` as a segment, or that string when short or nothing to fold. */
  static of(raw: string): FoldSegment | string {
    const ws = wsCodes();
    let start = 0;
    let end = raw.length;
    while (start < end && ws[raw.charCodeAt(start)]) start++;
    while (end > start && ws[raw.charCodeAt(end - 1)]) end--;
    // Each run of whitespace becomes one character; it folds something unless it is one space.
    let length = end - start;
    let folds = false;
    let prev = 0;
    for (let i = start; i < end; i++) {
      const w = ws[raw.charCodeAt(i)]!;
      if (w) {
        if (prev) {
          length--;
          folds = true;
        } else if (raw.charCodeAt(i) !== 32) folds = true;
      }
      prev = w;
    }
    if (!folds) return raw.slice(start, end);
    return new FoldSegment(raw, start, end, length);
  }

  /** The folded text as one string. */
  toString(): string {
    return this.raw.slice(this.start, this.end).replace(/\s+/g, " ");
  }
}

/** Folded in blocks of about this many characters of `raw`. */
const BLOCK = 1 << 20;

/**
 * `head` followed by a FoldSegment's text, made a block at a time as it is read. Reads go forward:
 * what lies before the position given to `release` may be dropped.
 */
export class FoldedText implements SplitSource {
  readonly length: number;
  private buf: string;
  /** Where buf starts in the text. */
  private bufStart = 0;
  private floor = 0;
  private rawPos: number;

  constructor(head: string, private readonly seg: FoldSegment, private readonly block = BLOCK) {
    this.buf = head;
    this.length = head.length + seg.length;
    this.rawPos = seg.start;
  }

  /** Nothing before `pos` will be read again. */
  release(pos: number): void {
    if (pos > this.floor) this.floor = pos;
  }

  slice(start: number, end: number): string {
    end = Math.min(end, this.length);
    if (start >= end) return "";
    this.cover(start, end);
    return this.buf.slice(start - this.bufStart, end - this.bufStart);
  }

  charCodeAt(i: number): number {
    if (i < 0 || i >= this.length) return NaN;
    this.cover(i, i + 1);
    return this.buf.charCodeAt(i - this.bufStart);
  }

  private cover(start: number, end: number): void {
    if (start < this.bufStart) throw new Error("FoldedText read before what it released");
    if (this.bufStart + this.buf.length >= end) return;
    const { raw, end: rawEnd } = this.seg;
    const keep = Math.min(this.floor, start);
    let buf = this.buf;
    while (this.bufStart + buf.length < end && this.rawPos < rawEnd) {
      const drop = Math.min(keep - this.bufStart, buf.length);
      if (drop > 0) {
        buf = buf.slice(drop);
        this.bufStart += drop;
      }
      // A block ends past a run of whitespace, never in one, so each run folds within one block.
      let stop = Math.min(rawEnd, this.rawPos + this.block);
      while (stop < rawEnd && isWs(raw.charCodeAt(stop))) stop++;
      buf += raw.slice(this.rawPos, stop).replace(/\s+/g, " ");
      this.rawPos = stop;
    }
    this.buf = buf;
  }
}

/**
 * `s` in a string of its own: a slice shares its base string, and chunk texts sliced from the blocks
 * would keep every block (the whole folded text) alive as long as the chunks. Joining two slices makes
 * a rope, which reading a character turns into one new string, its slices let go.
 */
export function own(s: string): string {
  if (s.length < 2) return s;
  const c = s.slice(0, 1) + s.slice(1);
  c.charCodeAt(0);
  return c;
}
