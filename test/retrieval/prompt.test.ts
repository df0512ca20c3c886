import { describe, expect, test } from "bun:test";
import { citedRefs, rerankChunks, retrievalText, toPassages } from "../../src/retrieval/prompt.ts";
import type { RetrievedChunk } from "../../src/retrieval/retrieve.ts";

const chunk = (id: string, text: string, pages: number[] = [1]): RetrievedChunk => ({
  chunkId: id, documentId: "doc", corpusId: "c", generation: 1, pages, text, title: "file.md", score: 0,
});

describe("prompt building", () => {
  test("passages are numbered from 1 in retrieval order, titled with the filename", () => {
    expect(toPassages([chunk("a", "alpha", [2, 3]), chunk("b", "beta", [])])).toEqual([
      { ref: 1, text: "alpha", pages: [2, 3], title: "file.md" },
      { ref: 2, text: "beta", pages: [], title: "file.md" },
    ]);
  });

  test("retrieval text adds the previous question, not the previous answer", () => {
    expect(retrievalText("and how long?", [])).toBe("and how long?");
    expect(retrievalText("and how long?", [
      { role: "user", content: "old question" },
      { role: "assistant", content: "old answer" },
      { role: "user", content: "zorblax warranty" },
      { role: "assistant", content: "it has one [1]" },
    ])).toBe("and how long?\nzorblax warranty");
  });
});

describe("cited refs", () => {
  test("keeps valid markers, sorted and unique", () => {
    expect(citedRefs([3, 1, 3, 9, 0, -1], true, 3)).toEqual([1, 3]);
  });
  test("an answer without markers stands on every passage it was given", () => {
    expect(citedRefs([], true, 3)).toEqual([1, 2, 3]);
    expect(citedRefs([7], true, 2)).toEqual([1, 2]);
  });
  test("a 'not in the documents' answer stands on none", () => {
    expect(citedRefs([1], false, 3)).toEqual([]);
    expect(citedRefs([], true, 0)).toEqual([]);
  });
});

describe("rerank", () => {
  test("orders by the re-ranker's score and keeps the requested number", async () => {
    const reranker = { id: "r", rerank: async (_q: string, ps: string[]) => ps.map((p) => p.length) };
    const out = await rerankChunks(reranker, "q", [chunk("a", "x"), chunk("b", "xxx"), chunk("c", "xx")], 2);
    expect(out.map((c) => c.chunkId)).toEqual(["b", "c"]);
  });
  test("equal scores keep the fused order", async () => {
    const reranker = { id: "r", rerank: async (_q: string, ps: string[]) => ps.map(() => 1) };
    const out = await rerankChunks(reranker, "q", [chunk("a", "x"), chunk("b", "y"), chunk("c", "z")], 3);
    expect(out.map((c) => c.chunkId)).toEqual(["a", "b", "c"]);
  });
});
