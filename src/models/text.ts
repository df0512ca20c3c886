// Text normalisation shared by the built-in tier: lowercase + NFKD accent folding so that
// "résumé" and "resume" meet, and a Unicode-aware word splitter that works across scripts.

const COMBINING = /[\u0300-\u036f]/g;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

export function fold(text: string): string {
  return text.normalize("NFKD").replace(COMBINING, "").toLowerCase();
}

/** Words of the folded text; elisions such as l'homme split so "homme" stays a word. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of fold(text).matchAll(WORD)) {
    const w = m[0];
    const apos = w.search(/['’]/);
    if (apos > 0 && apos <= 2) out.push(w.slice(apos + 1)); // l'x, d'x, qu'x
    else out.push(w.replace(/['’]/g, ""));
  }
  return out;
}

const ABBREV = new Set(["e.g", "i.e", "etc", "mr", "mrs", "ms", "dr", "prof", "vs", "no", "fig", "p", "pp", "cf", "st", "z.b", "bzw", "ca", "nr", "s"]);

// A boundary is a run of . ! ? … then closing quotes or brackets, then whitespace, then a sentence
// start. It is found by hand, not by one regex: a regex retried the whole run at each of its
// characters, so a run of 40,000 full stops took 4 s. Each sticky regex below matches one class
// from a fixed position, so every character is looked at a bounded number of times.
const isEnd = (c: string | undefined) => c === "." || c === "!" || c === "?" || c === "…";
const isCloser = (c: string | undefined) => c === '"' || c === "'" || c === "»" || c === "”" || c === ")" || c === "]";
const SPACES = /\s+/y;
const SENTENCE_START = /["'«“(\[]?[\p{Lu}\p{N}]/uy;
const SPACE = /\s/;

/** Lines of a block joined by one space: a whitespace run holding a line break becomes " ". */
const joinLines = (block: string) => block.replace(/\s+/g, (ws) => (ws.includes("\n") ? " " : ws));

/**
 * Sentences of a passage. Splits on . ! ? … followed by whitespace and an upper-case letter,
 * digit or quote, on line breaks between blocks, and on markdown list items; keeps common
 * abbreviations and decimals intact. Returned sentences are verbatim slices (trimmed).
 * Linear in the length of the text.
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n\s*\n|\n(?=\s*(?:[-*•+]|\d+[.)]|#+)\s)/)) {
    const flat = joinLines(block).trim();
    if (!flat) continue;
    let start = 0;
    let i = 0;
    while (i < flat.length) {
      if (!isEnd(flat[i])) {
        i++;
        continue;
      }
      const at = i;
      while (isEnd(flat[i])) i++;
      while (isCloser(flat[i])) i++;
      const end = i;
      SPACES.lastIndex = i;
      if (!SPACES.test(flat)) continue;
      i = SPACES.lastIndex;
      SENTENCE_START.lastIndex = i;
      if (!SENTENCE_START.test(flat)) continue;
      // The word before the punctuation; it lies after the previous boundary's whitespace, so
      // these backward scans never overlap.
      let w = at;
      while (w > start && !SPACE.test(flat[w - 1]!)) w--;
      const lastWord = flat.slice(w, at).toLowerCase();
      if (ABBREV.has(lastWord.replace(/^[("'«]+/, "")) || /^\p{Lu}$/u.test(lastWord)) continue;
      const s = flat.slice(start, end).trim();
      if (s) out.push(s);
      start = i;
    }
    const rest = flat.slice(start).trim();
    if (rest) out.push(rest);
  }
  return out;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * The start of `text` in at most `max` characters, ending at a word boundary when one lies in the
 * last fifth of that window (else cut there: a run without spaces has no better place), never
 * between the halves of a surrogate pair. Trailing whitespace is dropped.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const floor = Math.floor(end * 0.8);
  let ws = end;
  while (ws > floor && !SPACE.test(text[ws]!)) ws--;
  if (ws > floor) end = ws;
  else if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end).trimEnd();
}

/** `text` in at most `max` characters: clipped with an ellipsis when longer. */
export function ellipsize(text: string, max: number): string {
  return text.length <= max ? text : `${clip(text, max - 1)}…`;
}
