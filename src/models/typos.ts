// Question words the passages never spell are read as the passage word one typing slip away
// ("guitr" → "guitar", "chian" → "chain"). The extractive answerer matches words, so one typo in
// a short question left it below the coverage it needs, and it said the documents do not answer.
// Only the retrieved passages' own words are candidates: a slip is resolved towards what the
// documents say, never towards a dictionary, and a word the passages hold is never changed.
import { isStopword } from "./lang.ts";
import { stem } from "./lexical.ts";
import { words } from "./text.ts";

/** Shorter words are left alone: at three letters one slip turns most words into other words. */
const MIN_LENGTH = 4;
/**
 * Up to this length a word is only read as a longer one it lacks a letter of ("tapr" → "taper"):
 * a changed letter in a four-letter word is most often another word ("move" → "more", "much" →
 * "such"), which quoted an unrelated sentence beside the answer.
 */
const ONLY_DROPPED_UP_TO = 4;
/**
 * Distinct unknown words looked up per question. Each one is compared with every distinct word of
 * the passages (up to ~50,000 characters are read), on the server's event loop; a question of
 * 10,000 characters of unknown words would otherwise cost seconds. Past this many, a question has
 * words enough left as typed.
 */
export const MAX_LOOKUPS = 16;
/** From this length two slips are allowed: a long word is more often typed with two ("maintenace" → "maintenance" is one). */
const TWO_SLIPS_FROM = 9;

// Three rows of the slip table, reused: the comparison runs thousands of times per question.
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * Edits between a and b, counting a swap of two neighbours as one (optimal string alignment),
 * or max + 1 as soon as it is known to exceed max.
 */
export function slips(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (rows[0]!.length <= b.length) rows = rows.map(() => new Int32Array(b.length * 2 + 1));
  let [back, prev, row] = rows as [Int32Array, Int32Array, Int32Array]; // rows i-2, i-1, i
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, back[j - 2]! + 1);
      row[j] = d;
      if (d < least) least = d;
    }
    if (least > max) return max + 1;
    [back, prev, row] = [prev, row, back];
  }
  return prev[b.length]!;
}

/**
 * Which of 32 buckets of characters a word holds. One slip changes at most two buckets' presence
 * (a changed letter: one gone, one new; a dropped or added one: one), so words whose masks differ
 * in more than 2 × max bits are more than max slips apart, and most words are skipped on that.
 */
function letterMask(w: string): number {
  let m = 0;
  for (let i = 0; i < w.length; i++) m |= 1 << (w.charCodeAt(i) & 31);
  return m;
}

function bitCount(x: number): number {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

/**
 * The question's words, with each one that no passage holds (not even in another form: same
 * stem) replaced by the passage word closest to it, when one is a slip or two away; among
 * equally close words the most frequent wins, then the first met. Lower-cased, as `words` gives them.
 */
export function spellTowards(question: string, passages: string[]): string {
  const qWords = words(question);
  const count = new Map<string, number>();
  const stems = new Set<string>();
  for (const text of passages) {
    for (const w of words(text)) {
      count.set(w, (count.get(w) ?? 0) + 1);
      stems.add(stem(w));
    }
  }
  const fixed = new Map<string, string>();
  let spelled: { v: string; n: number; mask: number }[] | undefined; // the passages' words a slip may be read as
  const spell = (w: string): string => {
    if (w.length < MIN_LENGTH || isStopword(w) || /\d/.test(w) || count.has(w) || stems.has(stem(w))) return w;
    const known = fixed.get(w);
    if (known !== undefined) return known;
    if (fixed.size >= MAX_LOOKUPS) return w;
    const max = w.length >= TWO_SLIPS_FROM ? 2 : 1;
    let best = w;
    let bestSlips = max + 1;
    let bestCount = 0;
    spelled ??= [...count].filter(([v]) => v.length >= MIN_LENGTH && !/\d/.test(v)).map(([v, n]) => ({ v, n, mask: letterMask(v) }));
    const mask = letterMask(w);
    for (const { v, n, mask: vMask } of spelled) {
      if (w.length <= ONLY_DROPPED_UP_TO && v.length !== w.length + 1) continue;
      if (Math.abs(v.length - w.length) > max || bitCount(mask ^ vMask) > 2 * max) continue;
      const d = slips(w, v, Math.min(max, bestSlips));
      if (d < bestSlips || (d === bestSlips && d <= max && n > bestCount)) {
        best = v;
        bestSlips = d;
        bestCount = n;
      }
    }
    const out = bestSlips <= max ? best : w;
    fixed.set(w, out);
    return out;
  };
  return qWords.map(spell).join(" ");
}
