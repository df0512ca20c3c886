/*
 * Text splitting of an oversized pre-chunk, with the semantics of unstructured's text splitter:
 * cut at the right-most "\n" whose start lies in [overlap + 1, max], else the right-most " ",
 * else hard-cut at max. The separator is dropped; the piece is right-trimmed and the remainder
 * left-trimmed. With overlap > 1, the remainder is prefixed by the last (overlap - 1) characters of
 * the piece (left-trimmed) plus one space, so an overlapped piece still counts against max.
 * A hard cut re-reads the last `overlap` characters of the piece instead.
 *
 * The remainder is kept as (short head string, offset into the source) rather than a new string,
 * so splitting a 10 MB element costs O(size), not O(size² / max).
 */

import { FoldedText, isWs, own, type SplitSource } from "./folded.ts";

const SEPARATORS = ["\n", " "] as const;

interface Rest {
  head: string;
  src: SplitSource;
  pos: number;
}

function restLength(r: Rest): number {
  return r.head.length + r.src.length - r.pos;
}

function prefix(r: Rest, n: number): string {
  if (n <= r.head.length) return r.head.slice(0, n);
  return r.head + r.src.slice(r.pos, r.pos + n - r.head.length);
}

function advance(r: Rest, k: number): Rest {
  if (k <= r.head.length) return { head: r.head.slice(k), src: r.src, pos: r.pos };
  return { head: "", src: r.src, pos: r.pos + k - r.head.length };
}

function trimStart(r: Rest): Rest {
  const head = r.head.trimStart();
  if (head) return { head, src: r.src, pos: r.pos };
  let pos = r.pos;
  while (pos < r.src.length && isWs(r.src.charCodeAt(pos))) pos++;
  return { head: "", src: r.src, pos };
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Split `text` into pieces of at most `max` characters, with unstructured's overlap rules. */
export function splitText(text: string, max: number, overlap: number): string[] {
  return [...splitPieces(text, max, overlap)];
}

/**
 * Lazily, so a caller enforcing a chunk cap stops without building the pieces past it. A FoldedText
 * is read forward: what lies before the remainder's position is released as it goes.
 */
export function* splitPieces(text: SplitSource, max: number, overlap: number): Generator<string> {
  let r: Rest | null = { head: "", src: text, pos: 0 };
  while (r) {
    if (text instanceof FoldedText) text.release(r.pos);
    const [piece, rest] = splitOnce(r, max, overlap);
    yield text instanceof FoldedText ? own(piece) : piece;
    r = rest && restLength(rest) > 0 ? rest : null;
  }
}

function splitOnce(r: Rest, max: number, overlap: number): [string, Rest | null] {
  const len = restLength(r);
  if (len <= max) return [prefix(r, len), null];

  for (const sep of SEPARATORS) {
    const win = prefix(r, max + sep.length);
    const idx = win.lastIndexOf(sep, max);
    if (idx < overlap + 1) continue;
    const piece = win.slice(0, idx).trimEnd();
    let rest = trimStart(advance(r, idx + sep.length));
    if (overlap > 1) {
      const tail = piece.slice(-(overlap - 1)).trimStart();
      rest = { head: tail + " " + rest.head, src: rest.src, pos: rest.pos };
    }
    if (!piece || restLength(rest) >= len) continue;
    return [piece, trimStart(rest)];
  }

  // No separator: cut at max without splitting a UTF-16 surrogate pair.
  const win = prefix(r, max + 1);
  let cut = max;
  if (cut > 1 && isHigh(win.charCodeAt(cut - 1))) cut--;
  // Measured from max, not from a cut pulled back before a surrogate pair: each hard cut must
  // consume at least max - overlap characters (from cut - overlap, overlap max - 1 and a pair at
  // the cut gave 0: the same piece forever).
  let start = Math.min(cut, max - overlap);
  if (start < cut && isHigh(win.charCodeAt(start - 1))) start++;
  return [win.slice(0, cut).trimEnd(), trimStart(advance(r, start))];
}
