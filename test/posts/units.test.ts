import { describe, expect, test } from "bun:test";
import { selectHistory } from "../../src/posts/service.ts";
import { groupAttachments } from "../../src/posts/citations.ts";
import { splitTokens } from "../../src/posts/usage-split.ts";

describe("history selection", () => {
  // Rows come newest first, as the history query reads them.
  const rows = [
    { owner: "SYSTEM" as const, body: "a3" },
    { owner: "USER" as const, body: "q3" },
    { owner: "SYSTEM" as const, body: "a2" },
    { owner: "USER" as const, body: "q2" },
    { owner: "SYSTEM" as const, body: "a1" },
    { owner: "USER" as const, body: "q1" },
  ];
  test("keeps the last N posts, a question and its answer counting as two, oldest first", () => {
    expect(selectHistory(rows, 4)).toEqual([
      { role: "user", content: "q2" },
      { role: "assistant", content: "a2" },
      { role: "user", content: "q3" },
      { role: "assistant", content: "a3" },
    ]);
  });
  test("an odd size may start with an answer", () => {
    expect(selectHistory(rows, 3)).toEqual([
      { role: "assistant", content: "a2" },
      { role: "user", content: "q3" },
      { role: "assistant", content: "a3" },
    ]);
  });
  test("zero, negative or larger than the session", () => {
    expect(selectHistory(rows, 0)).toEqual([]);
    expect(selectHistory(rows, -2)).toEqual([]);
    expect(selectHistory(rows, 50)).toHaveLength(6);
  });
});

describe("attachment grouping", () => {
  test("chunks of one document collapse into one attachment with the union of pages, ascending", () => {
    const got = groupAttachments([
      { documentId: "d1", pages: [3, 4], summary: "S1", metadata: { a: 1 } },
      { documentId: "d2", pages: [], summary: null, metadata: {} },
      { documentId: "d1", pages: [1, 3], summary: "S1", metadata: { a: 1 } },
    ]);
    expect(got).toEqual([
      { docId: "d1", summary: "S1", pages: [1, 3, 4], metadata: { a: 1 } },
      { docId: "d2", summary: null, pages: [], metadata: {} },
    ]);
  });
});

describe("token attribution", () => {
  test("split evenly over the corpora that supplied chunks, remainder to the first in session order", () => {
    expect(splitTokens(101, ["c1", "c2", "c3"], ["c3", "c1", "c3"])).toEqual([
      { corpusId: "c1", amount: 51 },
      { corpusId: "c3", amount: 50 },
    ]);
  });
  test("no chunk: the session's first corpus carries everything; zero tokens record nothing", () => {
    expect(splitTokens(40, ["c1", "c2"], [])).toEqual([{ corpusId: "c1", amount: 40 }]);
    expect(splitTokens(0, ["c1"], ["c1"])).toEqual([]);
  });
  test("more corpora than tokens never records zero amounts", () => {
    expect(splitTokens(1, ["a", "b"], ["a", "b"])).toEqual([{ corpusId: "a", amount: 1 }]);
  });
});
