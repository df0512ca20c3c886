import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, ingest } from "../posts/helpers.ts";
import { plantNearTies } from "./near-ties.ts";

// Text ranking must read the asking organization's statistics only. B holds two chunks that
// differ in one word, "zebra" in one and "quokka" in two, so BM25 ranks the zebra chunk first
// (the rarer word). If word counts of the table every organization shares were used, A's
// documents full of "zebra" would make zebra the commoner word and flip B's top citation.

let k: Kbqa;
let a: Org;
let aCorpus: string;
let bTopCitations: () => Promise<string[]>;

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  aCorpus = await corpus(a, "a");
  bTopCitations = await plantNearTies(k, await k.org());
});
afterAll(() => k?.stop());

test("another organization's documents do not change which of one's chunks rank first", async () => {
  const before = await bTopCitations();
  expect(before).toEqual(["zebra", "zebra"]);
  for (let i = 0; i < 8; i++) await ingest(k, a, aCorpus, `z${i}.md`, `# Z ${i}\n\nzebra zebra zebra report number ${i}.\n`);
  expect(await bTopCitations()).toEqual(before);
});
