import { expect, test } from "bun:test";
import { sniff, TextSniffer } from "../../src/ingest/sniff.ts";
import { rng } from "../helpers/seeded.ts";
import { decodeStrict } from "../../src/ingest/convert/text.ts";
import { ConversionError } from "../../src/ingest/convert/errors.ts";

// Commit checks UTF-8 text without decoding it (isUtf8 and a search for NUL, on the event loop);
// the converter decodes strictly. Both must refuse exactly the same bytes, with the same words.
const reference = (bytes: Uint8Array): string | null => {
  try {
    decodeStrict(bytes);
    return null;
  } catch (e) {
    if (e instanceof ConversionError) return e.message;
    throw e;
  }
};

const hex = (h: string) => new Uint8Array(h.split(" ").map((x) => parseInt(x, 16)));
const edge: [string, Uint8Array][] = [
  ["ascii", new TextEncoder().encode("plain text\n")],
  ["multi-byte", new TextEncoder().encode("Ünïcödé 名前 😀")],
  ["UTF-8 BOM", hex("ef bb bf 41")],
  ["overlong NUL", hex("41 c0 80")],
  ["surrogate", hex("ed a0 80")],
  ["past U+10FFFF", hex("f4 90 80 80")],
  ["truncated at the end", hex("41 e2 82")],
  ["lone continuation", hex("80 41")],
  ["NUL", hex("41 00 42")],
  ["empty", new Uint8Array(0)],
  ["UTF-16LE", hex("ff fe 41 00 42 00")],
  ["UTF-16LE odd length", hex("ff fe 41 00 42")],
  ["UTF-16BE lone surrogate", hex("fe ff d8 00 00 41")],
  ["UTF-16 NUL", hex("ff fe 00 00")],
];

test("edge cases: the same verdict and words as the converter's strict decoding", () => {
  for (const [name, bytes] of edge) {
    const got = sniff(bytes, "text/plain");
    expect({ name, got }).toEqual({ name, got: reference(bytes) === null ? null : `${reference(bytes)}` });
  }
  expect(sniff(hex("41 c0 80"), "text/markdown")).toBe("the file is not valid UTF-8 text");
  expect(sniff(hex("41 00 42"), "application/json")).toBe("the file contains NUL bytes, so it is not text");
});

test("random bytes, mostly text with a few stray ones: the same verdict as strict decoding", () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const sample = "αβγ 名前 😀 plain \n".repeat(4);
  let refused = 0;
  for (let i = 0; i < 2000; i++) {
    const bytes = new TextEncoder().encode(sample);
    for (let j = 0; j < 1 + Math.floor(rnd() * 3); j++) bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
    const want = reference(bytes);
    if (want) refused++;
    expect(sniff(bytes, "text/plain")).toBe(want);
  }
  expect(refused).toBeGreaterThan(200); // the mutations did produce invalid text to compare on
});

test("fed in pieces cut anywhere (inside a character too): the same verdict as the whole", () => {
  const rand = rng(5);
  const sample = new TextEncoder().encode("αβγ 名前 😀 plain \n".repeat(8));
  for (let i = 0; i < 1500; i++) {
    const bytes = sample.slice();
    if (i % 3) for (let j = 0; j < 1 + Math.floor(rand() * 2); j++) bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
    if (i % 50 === 0) bytes.set([0xff, 0xfe]); // UTF-16 by byte-order mark
    const sniffer = new TextSniffer();
    for (let at = 0; at < bytes.length; ) {
      const n = 1 + Math.floor(rand() * 9);
      sniffer.push(bytes.subarray(at, at + n));
      at += n;
    }
    expect({ i, got: sniffer.finish() }).toEqual({ i, got: reference(bytes) });
  }
});
