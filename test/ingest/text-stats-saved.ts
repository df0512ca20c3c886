/**
 * For the tests of the text statistics' count after a crash: what a clean close saved, keyed by
 * organization with the terms sorted, so two saves compare with toEqual; and skewed random text.
 */
import { readFileSync } from "node:fs";

type Saved = { stats: { orgs: { orgId: string; rows: number; length: number; terms: string[]; df: number[] }[] } };

export const savedStats = (file: string) => {
  const saved = JSON.parse(readFileSync(file, "utf8")) as Saved;
  return Object.fromEntries(saved.stats.orgs.map((o) => [o.orgId, { rows: o.rows, length: o.length, df: Object.fromEntries(o.terms.map((t, i) => [t, o.df[i]]).sort()) }]));
};

/** n words of the vocabulary, the first ones far more often (a few common terms, a long tail). */
export const skewedWords = (rand: () => number, vocab: string[]) => (n: number) =>
  Array.from({ length: n }, () => vocab[Math.floor(vocab.length * rand() ** 2)]!).join(" ");
