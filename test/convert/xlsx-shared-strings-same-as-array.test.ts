import { expect, test } from "bun:test";
import { SharedStrings } from "../../src/ingest/convert/xlsx.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";

// Shared strings are held joined, with 4-byte end offsets in blocks, instead of as an array of
// strings (8 bytes each, 38 million empty ones took a worker past 1 GiB). A cell's value must find
// exactly what `array[Number(value)] ?? ""` found, past a block's end too.

test("every value names the string an array lookup named", () => {
  const rand = rng(38);
  const all: string[] = [];
  const held = new SharedStrings();
  const n = (1 << 20) + 5000;
  for (let i = 0; i < n; i++) {
    const r = rand();
    const s = r < 0.5 ? "" : r < 0.9 ? String.fromCharCode(97 + Math.floor(rand() * 26)).repeat(1 + Math.floor(rand() * 4)) : "é ✓ 𝄞".slice(0, Math.floor(rand() * 6));
    all.push(s);
    held.add(s);
  }
  held.done();
  const values = ["0", "1", "1.0", " 2 ", "-0", "-1", "1e0", "abc", "", "3.5", "4294967296", "Infinity", "NaN", "0x10", String(n - 1), String(n), String(1 << 20), String((1 << 20) - 1)];
  for (let k = 0; k < 20_000; k++) values.push(String(Math.floor(rand() * n)));
  for (const v of values) expect(held.get(v), v).toBe(all[Number(v)] ?? "");
});

test("none held: every value names the empty string", () => {
  const held = new SharedStrings().done();
  for (const v of ["0", "1", ""]) expect(held.get(v)).toBe("");
});

test("runs of empty strings, whole blocks of them and parts of blocks, every index", () => {
  // A block of 65,536 strings holds no offsets while all of its strings are empty; the first
  // non-empty one after empties in a block, and blocks all empty between others, must still be found.
  const BLOCK = 1 << 16;
  const all: string[] = new Array(6 * BLOCK + 7).fill("");
  for (const [at, s] of [[BLOCK + 500, "first after 500 empty"], [BLOCK + 501, "b"], [2 * BLOCK, "at a block's start"], [4 * BLOCK + BLOCK - 1, "last of a block"], [5 * BLOCK + 3, "é"], [6 * BLOCK + 6, "end"]] as const) all[at] = s;
  const rand = rng(65536);
  for (let k = 0; k < 50; k++) all[5 * BLOCK + Math.floor(rand() * BLOCK)] = `r${k}`;
  const held = new SharedStrings();
  for (const s of all) held.add(s);
  held.done();
  const wrong: number[] = [];
  for (let i = 0; i <= all.length; i++) if (held.get(String(i)) !== (all[i] ?? "")) wrong.push(i);
  expect(wrong.slice(0, 10)).toEqual([]);
});
