import { describe, expect, test } from "bun:test";
import { convert } from "../../src/ingest/convert/index.ts";
import { jsonToMarkdown, prettyCost } from "../../src/ingest/convert/text.ts";

// Pretty-printing indents by depth, so deeply nested JSON grew quadratically: a 60 KB object nested
// 10,000 deep expanded to hundreds of MB and hit the worker's 1 GiB memory limit; 100,000 nested arrays
// overflowed the stack in JSON.stringify. Beyond a depth or size budget the text keeps its own layout.

const enc = (s: string) => new TextEncoder().encode(s);

describe("JSON pretty-printing is bounded", () => {
  test("prettyCost measures depth outside strings and estimates the indented size", () => {
    expect(prettyCost('{"a":[1,2]}')).toEqual({ depth: 2, size: 11 + 3 + 5 + 5 + 3 + 1 + 1 });
    expect(prettyCost('["[[[{", "\\"[["]').depth).toBe(1);
    const pretty = JSON.stringify(JSON.parse('{"a":[1,{"b":[]}],"c":"x"}'), null, 2);
    expect(prettyCost('{"a":[1,{"b":[]}],"c":"x"}').size).toBeGreaterThanOrEqual(pretty.length);
  });

  test("an object nested 10,000 deep keeps its original text", async () => {
    const text = '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000);
    const md = jsonToMarkdown(enc(text));
    expect(md).toBe("```json\n" + text + "\n```\n");
    const converted = await convert(enc(text), "application/json");
    expect(converted.markdown.length).toBeLessThan(2 * text.length);
  });

  test("100,000 nested arrays keep their original text", () => {
    const text = "[".repeat(100_000) + "]".repeat(100_000);
    expect(jsonToMarkdown(enc(text))).toBe("```json\n" + text + "\n```\n");
  });

  test("moderate nesting is still pretty-printed", () => {
    const text = '{"a":'.repeat(30) + "[1,2]" + "}".repeat(30);
    expect(jsonToMarkdown(enc(text))).toBe("```json\n" + JSON.stringify(JSON.parse(text), null, 2) + "\n```\n");
  });

  test("a large flat array is pretty-printed (growth well under the budget)", () => {
    const text = "[" + "0,".repeat(200_000) + "0]";
    const md = jsonToMarkdown(enc(text));
    expect(md.startsWith("```json\n[\n  0,\n  0,")).toBe(true);
  });

  test("shallow JSON whose indentation would grow it past tenfold keeps its text", () => {
    // 40 levels of one-key objects around short arrays, repeated: each comma costs ~80 spaces of indentation
    const inner = '{"k":'.repeat(40) + "[" + "1,".repeat(50) + "1]" + "}".repeat(40);
    const text = "[" + Array(2_000).fill(inner).join(",") + "]";
    expect(text.length).toBeGreaterThan(100_000);
    const md = jsonToMarkdown(enc(text));
    expect(md).toBe("```json\n" + text + "\n```\n");
  });
});
