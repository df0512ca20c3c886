/**
 * For the tests of the text statistics' count after a crash: what a clean close saved, keyed by
 * organization with the terms sorted, so two saves compare with toEqual; and skewed random text.
 */
import { expect } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { openLanceIndex } from "../../src/store/lance.ts";

type Saved = { stats: { orgs: { orgId: string; rows: number; length: number; terms: string[]; df: number[] }[] } };

export const savedStats = (file: string) => {
  const saved = JSON.parse(readFileSync(file, "utf8")) as Saved;
  return Object.fromEntries(saved.stats.orgs.map((o) => [o.orgId, { rows: o.rows, length: o.length, df: Object.fromEntries(o.terms.map((t, i) => [t, o.df[i]]).sort()) }]));
};

/** n words of the vocabulary, the first ones far more often (a few common terms, a long tail). */
export const skewedWords = (rand: () => number, vocab: string[]) => (n: number) =>
  Array.from({ length: n }, () => vocab[Math.floor(vocab.length * rand() ** 2)]!).join(" ");

/**
 * Closes `idx` and reads what its count saved, then counts the same table again with nothing
 * racing the count: the two must be equal.
 */
export async function racingAndQuiet(idx: { close(): Promise<void> }, path: string, embedder: string, file: string) {
  await idx.close();
  const racing = savedStats(file);
  rmSync(file);
  const again = await openLanceIndex(path, embedder, 2);
  expect(await again.textStatsReady()).toBe(true);
  await again.close();
  return { racing, quiet: savedStats(file) };
}
