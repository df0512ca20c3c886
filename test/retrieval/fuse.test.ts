import { describe, expect, test } from "bun:test";
import { reciprocalRankFusion } from "../../src/retrieval/fuse.ts";

const hit = (chunkId: string, score = 0) => ({ chunkId, documentId: "d-" + chunkId, corpusId: "c", score });

describe("reciprocal rank fusion", () => {
  test("sums 1/(k+rank) over the lists a chunk appears in", () => {
    const fused = reciprocalRankFusion([[hit("a"), hit("b")], [hit("b"), hit("c")]], 60);
    expect(fused.map((f) => f.chunkId)).toEqual(["b", "a", "c"]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[1]).toEqual({ chunkId: "a", documentId: "d-a", corpusId: "c", score: 1 / 61, bestRank: 1 });
    expect(fused[2]!.score).toBeCloseTo(1 / 62, 12);
  });

  test("ignores raw scores: only ranks count", () => {
    const fused = reciprocalRankFusion([[hit("a", 0.001), hit("b", 1000)]]);
    expect(fused.map((f) => f.chunkId)).toEqual(["a", "b"]);
  });

  test("a chunk listed twice in one list counts once, at its best rank", () => {
    const fused = reciprocalRankFusion([[hit("a"), hit("a"), hit("b")]], 60);
    expect(fused[0]!.score).toBeCloseTo(1 / 61, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 63, 12);
  });

  test("ties go to the better best rank, then to the id", () => {
    // x is 1st in list one, y 1st in list two: equal score and best rank → id order.
    const fused = reciprocalRankFusion([[hit("y")], [hit("x")]]);
    expect(fused.map((f) => f.chunkId)).toEqual(["x", "y"]);
  });

  test("empty input gives nothing", () => {
    expect(reciprocalRankFusion([])).toEqual([]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });
});
