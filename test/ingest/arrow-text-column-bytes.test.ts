// The Arrow text columns of a Lance write are encoded straight into one buffer, their sizes counted
// first: every value's bytes must be exactly what TextEncoder gives it, including a lone surrogate
// (U+FFFD, 3 bytes, where Bun's Buffer.byteLength counts 2) and text after it.
import { expect, test } from "bun:test";
import { toArrowTable } from "../../src/store/lance-rows.ts";

test("text column bytes and offsets equal each value's UTF-8, lone surrogates included", () => {
  const texts = ["plain", "", "wörds 日本語", "😀 pair", "lone \uD800 high", "lone \uDC00 low", "ends \uD83D", "after"];
  const doc = "00000000-0000-4000-8000-000000000001";
  const t = toArrowTable(texts.map((text, i) => ({
    chunkId: `00000000-0000-4000-8000-00000000010${i}`, orgId: doc, corpusId: doc, documentId: doc, generation: 1, text, vector: new Float32Array([i, 1]),
  })), 2, "t");
  const col = t.getChild("text")!;
  const data = col.data[0]!;
  const enc = new TextEncoder();
  const want = texts.map((s) => enc.encode(s));
  const offsets = [0];
  for (const w of want) offsets.push(offsets[offsets.length - 1]! + w.byteLength);
  expect(Array.from(data.valueOffsets)).toEqual(offsets);
  expect(Buffer.from(data.values).equals(Buffer.concat(want))).toBe(true);
  expect(Array.from({ length: texts.length }, (_, i) => col.get(i))).toEqual(texts.map((s) => new TextDecoder().decode(enc.encode(s))));
});
