// A JSON document is converted to one fenced code block, which stripMarkdown drops, so the summary
// was the bare heading; cut at the summary input, the block lost its closing fence and the summary
// read "- json [[[[…". Such a document is now summarised by its first lines that say something:
// `"name": "Alice",` reads `name: Alice`, lines of brackets, braces and commas are skipped.
import { describe, expect, test } from "bun:test";
import { extractiveSummary } from "../../src/models/builtin-summary.ts";
import { codeItem } from "../../src/models/summary-blocks.ts";
import { jsonToMarkdown } from "../../src/ingest/convert/text.ts";
import { SUMMARY_INPUT_CHARS } from "../../src/ingest/enrich.ts";

const json = (value: unknown) => jsonToMarkdown(new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value)));
const summary = (md: string) => extractiveSummary(md, "en").text;

describe("a JSON document is summarised by its first meaningful lines", () => {
  test("records: one bullet per member, at most seven", () => {
    const people = [
      { name: "Alice", city: "Paris", age: 30 },
      { name: "Bob", city: "Lyon", age: 41 },
      { name: "Chloé", city: "Nice", age: 25 },
    ];
    expect(summary(json(people))).toEqual(
      "## Summary\n\n- name: Alice\n- city: Paris\n- age: 30\n- name: Bob\n- city: Lyon\n- age: 41\n- name: Chloé\n",
    );
  });

  test("members that only open an object or array are left to their contents; escapes are read", () => {
    const doc = { user: { name: "Alice", tags: ["admin", "dev"] }, active: true, empty: [], note: 'two\nlines and a "quote"' };
    expect(summary(json(doc))).toEqual('## Summary\n\n- name: Alice\n- admin\n- dev\n- active: true\n- note: two lines and a "quote"\n');
  });

  test("a JSON cut at the summary input (no closing fence): its first lines, no fence or 'json' left", () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ id: i, label: `row ${i}` }));
    const md = json(rows);
    expect(md.length).toBeGreaterThan(SUMMARY_INPUT_CHARS);
    expect(summary(md.slice(0, SUMMARY_INPUT_CHARS))).toEqual(
      "## Summary\n\n- id: 0\n- label: row 0\n- id: 1\n- label: row 1\n- id: 2\n- label: row 2\n- id: 3\n",
    );
  });

  // Nesting deeper than 64 keeps the document's own layout: one line of brackets.
  test("deep nesting kept on one line: the value inside, never the brackets", () => {
    expect(summary(json("[".repeat(100) + '"deep"' + "]".repeat(100)))).toEqual("## Summary\n\n- deep\n");
    const cut = json("[".repeat(300_000) + "]".repeat(300_000)).slice(0, SUMMARY_INPUT_CHARS);
    expect(summary(cut)).toEqual("## Summary\n");
  });

  test("a code-only markdown document: its code lines as they are", () => {
    const md = "```python\ndef area(r):\n    return 3.14 * r[0] * r[0]\n```\n";
    expect(summary(md)).toEqual("## Summary\n\n- def area(r):\n- return 3.14 * r[0] * r[0]\n");
  });

  test("prose around a code block keeps the prose summary", () => {
    const md = 'Set the timeout in the configuration file as shown below.\n\n```json\n{ "timeout": 30 }\n```\n';
    expect(summary(md)).toEqual("## Summary\n\n- Set the timeout in the configuration file as shown below.\n");
  });
});

describe("codeItem: one line of code as an item", () => {
  test("JSON lines", () => {
    expect(['"name": "Alice",', '"age": 30', '"tags": [', "},", "]", "[[[{", '"plain"', '"k": [1, 2]', '"": "no key"', "42,"].map(codeItem)).toEqual(
      ["name: Alice", "age: 30", null, null, null, null, "plain", "k: 1, 2", "no key", "42"],
    );
  });

  test("other code keeps its brackets", () => {
    expect(["f(x[0]) // {a: [1]}", "});", "return {"].map(codeItem)).toEqual(["f(x[0]) // {a: [1]}", null, "return {"]);
  });
});
