import { describe, expect, test } from "bun:test";
import { contains, pairMatches } from "../../src/sessions/match.ts";

describe("metadata containment", () => {
  const stored = { team: "hr", n: 3, ok: true, none: null, tags: ["a", "b", { k: 1, x: 2 }], deep: { a: { b: [1, 2, 3], c: "x" } } };
  const cases: [unknown, boolean][] = [
    [{}, true],
    [{ team: "hr" }, true],
    [{ team: "HR" }, false],
    [{ team: "hr", n: 3 }, true],
    [{ n: "3" }, false],
    [{ ok: true, none: null }, true],
    [{ none: false }, false],
    [{ missing: null }, false],
    [{ tags: ["b"] }, true],
    [{ tags: ["b", "a"] }, true],
    [{ tags: ["c"] }, false],
    [{ tags: [{ k: 1 }] }, true],
    [{ tags: [{ k: 2 }] }, false],
    [{ tags: "a" }, false],
    [{ deep: { a: { b: [3] } } }, true],
    [{ deep: { a: { b: [4] } } }, false],
    [{ deep: { a: { c: "x", b: [] } } }, true],
    [{ deep: { a: "x" } }, false],
    [{ deep: {} }, true],
  ];
  for (const [frag, want] of cases) test(JSON.stringify(frag), () => expect(contains(stored, frag)).toBe(want));
});

describe("key/value pair", () => {
  const m = { s: "3", n: 3, b: false, z: null, o: { a: 1 } };
  test.each([
    ["s", "3", true],
    ["n", "3", true],
    ["n", "3.0", false],
    ["b", "false", true],
    ["z", "null", true],
    ["o", '{"a":1}', false],
    ["x", "3", false],
  ] as const)("%s=%s → %p", (k, v, want) => expect(pairMatches(m, k, v)).toBe(want));
});
