import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { parseCsv } from "../../src/ingest/convert/csv.ts";
import { utf8 } from "./fixtures.ts";

test("CSV with quotes, commas, newlines and pipes becomes a markdown table", async () => {
  const csv = 'name,comment,n\r\n"Smith, J","said ""hi""",1\r\nDoe,"a|b\nc",2\r\nshort\r\n';
  const out = await convert(utf8(csv), "text/csv");
  expect(out).toEqual({
    nbPages: 0,
    markdown:
      "| name | comment | n |\n| --- | --- | --- |\n" +
      '| Smith, J | said "hi" | 1 |\n| Doe | a\\|b c | 2 |\n| short |  |  |\n',
  });
});

test("CSV parsing handles semicolons, empty fields and a missing final newline", async () => {
  expect(parseCsv('a,,"",b')).toEqual([["a", "", "", "b"]]);
  expect((await convert(utf8("x;y\n1;2"), "text/csv")).markdown).toBe("| x | y |\n| --- | --- |\n| 1 | 2 |\n");
  expect((await convert(utf8(""), "text/csv")).markdown).toBe("");
});

test("a one-line CSV with a million fields is linear", async () => {
  const line = "a,".repeat(1_000_000);
  const t0 = performance.now();
  expect(parseCsv(line)[0]!.length).toBe(1_000_001);
  expect(performance.now() - t0).toBeLessThan(5000);
});

test("markdown passes through; plain text has structure-like lines escaped", async () => {
  expect(await convert(utf8("\ufeff# Title\r\n\r\n- item\r\n"), "text/markdown")).toEqual({
    markdown: "# Title\n\n- item\n",
    nbPages: 0,
  });
  expect((await convert(utf8("# not a heading\nline two\n\n1. step"), "text/plain")).markdown).toBe(
    "\\# not a heading\nline two\n\n1\\. step\n",
  );
});

test("page markers inside unpaged documents are neutralised", async () => {
  expect((await convert(utf8("a\n<!-- page 7 -->\nb"), "text/markdown")).markdown).toBe("a\n\\<!-- page 7 -->\nb\n");
});

test("JSON is pretty-printed in a fenced block; invalid JSON is a clear error", async () => {
  expect((await convert(utf8('{"a":[1,2]}'), "application/json")).markdown).toBe(
    '```json\n{\n  "a": [\n    1,\n    2\n  ]\n}\n```\n',
  );
  // In our words: the parser's ("JSON Parse error: …") goes to the log only.
  const reason = (bytes: Uint8Array) => convert(bytes, "application/json").then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));
  expect(await reason(utf8("{oops"))).toBe("not valid JSON");
  expect(await reason(utf8(""))).toBe("the file is empty");
  expect(await reason(utf8(" \n\t"))).toBe("not valid JSON: the file holds only whitespace");
});

test("invalid UTF-8 and unknown types are ConversionErrors", async () => {
  const bad = await convert(new Uint8Array([0x61, 0xff, 0x62]), "text/plain").catch((e) => e);
  expect(bad).toBeInstanceOf(ConversionError);
  expect(bad.message).toBe("the file is not valid UTF-8 text");
  const unknown = await convert(utf8("x"), "image/png").catch((e) => e);
  expect(unknown.message).toBe("content type image/png is not supported");
});
