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

/**
 * Sentences of a passage. Splits on . ! ? … followed by whitespace and an upper-case letter,
 * digit or quote, on line breaks between blocks, and on markdown list items; keeps common
 * abbreviations and decimals intact. Returned sentences are verbatim slices (trimmed).
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)]|#+)\s)/)) {
    const flat = block.replace(/\s*\n\s*/g, " ").trim();
    if (!flat) continue;
    let start = 0;
    const re = /[.!?…]+["'»”)\]]*\s+(?=["'«“(\[]?[\p{Lu}\p{N}])/gu;
    for (const m of flat.matchAll(re)) {
      const end = m.index! + m[0].trimEnd().length;
      const before = flat.slice(start, m.index!);
      const lastWord = (before.match(/(\S+)$/)?.[1] ?? "").toLowerCase();
      if (ABBREV.has(lastWord.replace(/^[("'«]+/, "")) || /^\p{Lu}$/u.test(lastWord)) continue;
      const s = flat.slice(start, end).trim();
      if (s) out.push(s);
      start = m.index! + m[0].length;
    }
    const rest = flat.slice(start).trim();
    if (rest) out.push(rest);
  }
  return out;
}
