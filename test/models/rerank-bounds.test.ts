import { describe, expect, test } from "bun:test";
import { createBuiltinReranker } from "../../src/models/builtin-rerank.ts";

const FILLER = "The cafeteria serves lunch from noon on weekdays. Parking permits are renewed every spring. ";
const LEAVE = "Employees accrue 25 vacation days of paid leave per calendar year.";

describe("the built-in reranker's work is bounded per question", () => {
  test("100 passages of 51,000 characters are scored in well under a second (took 2.6 s)", async () => {
    const big = FILLER.repeat(Math.ceil(51_000 / FILLER.length));
    const passages = Array.from({ length: 100 }, (_, i) => (i === 63 ? `${LEAVE} ${big}` : big));
    const reranker = createBuiltinReranker();
    await reranker.rerank("vacation days", passages.slice(0, 2)); // warm the JIT
    const t0 = performance.now();
    const scores = await reranker.rerank("How many vacation days do employees get?", passages);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(800);
    expect(scores.length).toBe(100);
    expect(scores.indexOf(Math.max(...scores))).toBe(63);
  });

  test("a few passages of the default chunk size are scored whole: a term at the end counts", async () => {
    const end = `${FILLER.repeat(Math.floor((10_000 - LEAVE.length - 1) / FILLER.length))}${LEAVE}`;
    expect(end.length).toBeLessThanOrEqual(10_000);
    const scores = await createBuiltinReranker().rerank("vacation days", [FILLER.repeat(100), end, FILLER.repeat(90)]);
    expect(scores.indexOf(Math.max(...scores))).toBe(1);
  });
});
