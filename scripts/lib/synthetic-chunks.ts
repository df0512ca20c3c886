/**
 * The text-statistics benchmarks' synthetic chunks: n chunks of 60-119 words drawn from a skewed
 * 20,000-word vocabulary (a few common terms, a long tail), 10 to a document, the documents spread
 * over 5 organizations, each with random vectors. Seeded, so every run writes the same table.
 */
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { mulberry32 } from "../../test/helpers/seeded.ts";

export const DIMS = 384;
export const PER_DOC = 10;

export function syntheticChunks(n: number) {
  const rand = mulberry32(42);
  const vocab = Array.from({ length: 20000 }, (_, i) => "w" + i.toString(36) + ["alpha", "beta", "gamma", "delta", "omega"][i % 5]);
  const zipf = () => vocab[Math.floor(vocab.length * Math.pow(rand(), 2.5))]!;
  const text = () => Array.from({ length: 60 + Math.floor(rand() * 60) }, zipf).join(" ");
  const vector = () => Float32Array.from({ length: DIMS }, () => rand() - 0.5);
  const orgs = Array.from({ length: 5 }, () => ({ org: newId(), corpus: newId() }));
  const docs = Array.from({ length: n / PER_DOC }, (_, i) => ({ ...orgs[i % orgs.length]!, doc: newId() }));
  const records = (d: (typeof docs)[number], generation: number): VectorRecord[] =>
    Array.from({ length: PER_DOC }, () => ({ chunkId: newId(), orgId: d.org, corpusId: d.corpus, documentId: d.doc, generation, text: text(), vector: vector() }));
  return { rand, zipf, text, orgs, docs, records };
}
