// The crash test finds each document by its code word (test/helpers/crash-model.ts): a question
// naming it must match that document only. So every code word must stay one term of its own
// through the full-text index's terms (stemmed: src/store/fts-terms.ts), the built-in answerer's
// (src/models/lexical.ts) and the built-in embedder's word feature (src/models/builtin-embed.ts).
import { expect, test } from "bun:test";
import { codeWord } from "../helpers/crash-model.ts";
import { ftsTerms } from "../../src/store/fts-terms.ts";
import { contentTerms } from "../../src/models/lexical.ts";
import { lightStem } from "../../src/models/builtin-embed.ts";

test("every code word of the crash test is a term of its own for the index, the answerer and the embedder", () => {
  const seen = new Map<string, number>();
  const wrong: string[] = [];
  for (let n = 0; n < 26 ** 3; n++) {
    const w = codeWord(n);
    const terms = [ftsTerms(w), contentTerms(w), [lightStem(w)]];
    if (terms.some((t) => t.length !== 1 || t[0] !== w)) wrong.push(`${n}: ${w} -> ${JSON.stringify(terms)}`);
    if (seen.has(w)) wrong.push(`${n}: ${w} also ${seen.get(w)}`);
    seen.set(w, n);
  }
  expect(wrong.slice(0, 10)).toEqual([]);
});
