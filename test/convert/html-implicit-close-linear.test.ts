import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/ingest/convert/html-to-markdown.ts";
import { decodeEntities } from "../../src/ingest/convert/html-tokenizer.ts";

describe("implicit closing of HTML elements", () => {
  // Every <p> and <dt> looked for an open element to close by walking the whole open-element stack down to
  // the nearest <table>: 100k inline elements in between made each tag cost 100k steps (400 KB took 31 s).
  test("a deep stack between the table and the element to close stays fast", () => {
    const pairs = 40_000;
    const html = "<dt><p><table>" + "<b>".repeat(pairs) + "<p><dt>".repeat(pairs) + "x";
    const t0 = performance.now();
    const md = htmlToMarkdown(html);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(md).toBe("x\n");
  });

  test("scope elements still bound what an opening tag closes", () => {
    // the inner <li> belongs to the nested list; the outer item stays open around it
    expect(htmlToMarkdown("<ul><li>a<ul><li>b<li>c</ul>d<li>e</ul>")).toBe("- a\n  - b\n  - c\n\n  d\n\n- e\n");
    // a <p> inside a cell does not close the <p> outside the table
    expect(htmlToMarkdown("<p>before<table><tr><td><p>in</td></tr></table>after")).toBe(
      "before\n\n| in |\n| --- |\n\nafter\n",
    );
    // <dd> closes <dt>, <tr> closes the open cell and row
    expect(htmlToMarkdown("<dl><dt>term<dd>def</dl>")).toBe("term\n\ndef\n");
    expect(htmlToMarkdown("<table><tr><td>1<td>2<tr><td>3<td>4</table>")).toBe("| 1 | 2 |\n| --- | --- |\n| 3 | 4 |\n");
  });

  test("an end tag closes its nearest open element and everything above it", () => {
    expect(htmlToMarkdown("<ul><li>a<b><i>b</ul>c")).toBe("- ab\n\nc\n");
    expect(htmlToMarkdown("</p></li>text</table>")).toBe("text\n");
  });
});

describe("names shared with Object.prototype", () => {
  test("a <constructor> tag is an ordinary unknown element", () => {
    // threw "closes.some is not a function": the implicit-close table was an object literal
    expect(htmlToMarkdown("<p>a<constructor>b</constructor>c</p>")).toBe("abc\n");
  });

  test("&constructor; and &toString; stay as written", () => {
    // decoded to the source text of Object and Object.prototype.toString before
    expect(decodeEntities("a &constructor; b &toString; &amp;")).toBe("a &constructor; b &toString; &");
  });
});
