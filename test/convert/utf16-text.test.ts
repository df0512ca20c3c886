import { expect, test } from "bun:test";
import { convert } from "../../src/ingest/convert/index.ts";
import { sniff } from "../../src/ingest/sniff.ts";

// Windows editors save "Unicode" text as UTF-16 with a byte-order mark: it is text, not a
// file full of NUL bytes.
function utf16(text: string, order: "le" | "be"): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out.set(order === "le" ? [0xff, 0xfe] : [0xfe, 0xff]);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const [a, b] = order === "le" ? [c & 0xff, c >> 8] : [c >> 8, c & 0xff];
    out[2 + 2 * i] = a;
    out[3 + 2 * i] = b;
  }
  return out;
}

const TEXT = "Leave policy\r\n\r\nEmployees get 25 days of paid leave — per year.";

for (const order of ["le", "be"] as const) {
  test(`UTF-16${order.toUpperCase()} with a byte-order mark passes the commit check and converts like its UTF-8 twin`, async () => {
    const bytes = utf16(TEXT, order);
    expect(sniff(bytes, "text/plain")).toBeNull();
    const asUtf16 = await convert(bytes, "text/plain");
    const asUtf8 = await convert(new TextEncoder().encode(TEXT), "text/plain");
    expect(asUtf16.markdown).toBe(asUtf8.markdown);
    expect(asUtf16.markdown).toContain("25 days of paid leave — per year.");
  });
}

test("a byte-order mark followed by bytes that are not UTF-16 is refused, naming the encoding", () => {
  const broken = utf16(TEXT, "le").subarray(0, 7); // odd length: a half character at the end
  expect(sniff(broken, "text/plain")).toBe("the file starts with a UTF-16LE byte-order mark but is not valid UTF-16LE text");
  expect(sniff(new Uint8Array([0x61, 0, 0x62]), "text/plain")).toBe("the file contains NUL bytes, so it is not text");
});
