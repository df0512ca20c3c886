// builtin-hash-embed: deterministic feature-hashing embedder. Word unigrams (on a light stem) and
// bigrams of content words capture topic; character 3–5-grams of each word (with boundary marks)
// make it tolerant to inflection, compounds and typos across languages. Sub-linear tf
// (1 + ln tf), signed hashing (sign from an independent hash bit halves collision bias),
// L2-normalised so dot product = cosine.
//
// Weights were chosen on the training half of scripts/eval-retrieval.ts's questions (vector-only
// MRR); the held-out half is what the README reports.
import { words } from "./text.ts";
import { isStopword } from "./lang.ts";
import type { Embedder } from "./types.ts";

export const BUILTIN_EMBED_ID = "builtin-hash-embed";
export const BUILTIN_EMBED_DIMS = 384;

// Relative weights of feature families; stop words still count a little so that
// "to be or not to be" does not embed to zero.
const W_UNI = 1.0;
const W_STOP = 0.15;
const W_BI = 0.3;
const W_CHAR = 0.4;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// Longest first. Only inflectional endings: "-tion" or "-ness" carry meaning and stay.
const SUFFIXES = ["ings", "ing", "edly", "ies", "ied", "ers", "er", "ed", "es", "ly", "s"];

/**
 * A deliberately light stem: strips one inflectional ending when at least three letters remain,
 * so "swarming"/"swarm", "inspected"/"inspect", "batteries"/"battery" share their word feature.
 * Over-stemming costs little here because the character n-grams still tell words apart.
 */
export function lightStem(w: string): string {
  if (w.length <= 4 || /\d/.test(w)) return w;
  for (const suf of SUFFIXES) {
    if (w.endsWith(suf) && w.length - suf.length >= 3) {
      const root = w.slice(0, -suf.length);
      return suf === "ies" || suf === "ied" ? root + "y" : root;
    }
  }
  return w;
}

function addFeature(counts: Map<string, [number, number]>, key: string, weight: number): void {
  const cur = counts.get(key);
  if (cur) cur[0]++;
  else counts.set(key, [1, weight]);
}

export function hashEmbed(text: string, dims = BUILTIN_EMBED_DIMS): Float32Array {
  const ws = words(text);
  const stop = ws.map(isStopword);
  const counts = new Map<string, [number, number]>();
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    if (stop[i]) {
      addFeature(counts, "w:" + w, W_STOP);
      continue;
    }
    addFeature(counts, "w:" + lightStem(w), W_UNI);
    // Bigrams with a stop word ("how do", "of the") match almost any passage: pure noise.
    if (i + 1 < ws.length && !stop[i + 1]) addFeature(counts, "b:" + w + " " + ws[i + 1], W_BI);
    const marked = "<" + w + ">";
    for (let n = 3; n <= 5; n++) {
      for (let j = 0; j + n <= marked.length; j++) addFeature(counts, "c:" + marked.slice(j, j + n), W_CHAR);
    }
  }
  const v = new Float32Array(dims);
  for (const [key, [tf, weight]] of counts) {
    const h = fnv1a(key);
    const sign = (h & 0x80000000) !== 0 ? -1 : 1;
    v[(h & 0x7fffffff) % dims]! += sign * weight * (1 + Math.log(tf));
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dims; i++) v[i]! /= norm;
  return v;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export function createBuiltinEmbedder(dims = BUILTIN_EMBED_DIMS): Embedder {
  return {
    id: BUILTIN_EMBED_ID,
    dims,
    // Queries and passages share one space: no prefixes needed.
    async embed(texts) {
      return texts.map((t) => hashEmbed(t, dims));
    },
  };
}
