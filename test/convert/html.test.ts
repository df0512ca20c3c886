import { expect, test } from "bun:test";
import { convert } from "../../src/ingest/convert/index.ts";
import { utf8 } from "./fixtures.ts";

const html = async (s: string) => (await convert(utf8(s), "text/html; charset=UTF-8")).markdown;

test("scripts, styles, noscript and templates are dropped; structure is kept", async () => {
  const md = await html(`<!doctype html><html><head><title>Tab title</title><style>p { color: red }</style>
<script>if (a < b && c > d) document.write("</p><h1>fake</h1>")</script></head>
<body><h1>Main &amp; Title</h1><p>Hello <b>world</b>,<br>second&nbsp;line</p>
<noscript>enable js</noscript><template><p>template text</p></template>
<h3>Lists</h3><ul><li>one<li>two<ul><li>nested</li></ul></li></ul><ol start="3"><li>three</li><li>four</ol>
<table><tr><th>a</th><th>b|c</th></tr><tr><td>1<td><p>2</p></table>
<pre>code
  indented</pre><p># not a heading</p><div>see <a href="https://x.example">the link</a></div>
<SCRIPT type="text/javascript">alert(1)</SCRIPT ></body></html>`);
  expect(md).toBe(
    [
      "# Main & Title",
      "Hello world,\nsecond line",
      "### Lists",
      "- one\n- two\n  - nested",
      "3. three\n4. four",
      "| a | b\\|c |\n| --- | --- |\n| 1 | 2 |",
      "```\ncode\n  indented\n```",
      "\\# not a heading",
      "see the link",
    ].join("\n\n") + "\n",
  );
});

test("unclosed and stray tags are tolerated", async () => {
  expect(await html("<p>a<p>b</span></div><li>c<li>d")).toBe("a\n\nb\n\n- c\n- d\n");
  expect(await html("text < 3 and <<b>bold")).toBe("text < 3 and <bold\n");
});

test("a marker-looking line in HTML is neutralised", async () => {
  expect(await html("<p>&lt;!-- page 2 --&gt;</p>")).toBe("\\<!-- page 2 -->\n");
});

test("a 10 MB one-line HTML file converts quickly", async () => {
  const unit = `<div class="x"><span>word &amp; more</span> <a href="/y">link</a></div>`;
  const big = unit.repeat(Math.ceil((10 * 1024 * 1024) / unit.length));
  const t0 = performance.now();
  const md = await html(big);
  const ms = performance.now() - t0;
  expect(md.startsWith("word & more link\n\nword & more link")).toBe(true);
  expect(ms).toBeLessThan(20_000);
});

test("100,000 nested elements finish without stack overflow", async () => {
  const n = 100_000;
  const t0 = performance.now();
  const md = await html("<div>".repeat(n) + "deep" + "</div>".repeat(n));
  expect(md).toBe("deep\n");
  const lists = await html("<ul><li>".repeat(2000) + "x" + "</li></ul>".repeat(2000));
  expect(lists.trimEnd().endsWith("- x")).toBe(true);
  const unclosed = await html("<table><tr><td>".repeat(20_000) + "cell");
  expect(unclosed).toContain("cell");
  expect(performance.now() - t0).toBeLessThan(20_000);
});

test("100,000 unmatched end tags stay linear", async () => {
  const t0 = performance.now();
  const md = await html("<div>".repeat(100_000) + "x" + "</span>".repeat(100_000));
  expect(md).toBe("x\n");
  expect(performance.now() - t0).toBeLessThan(20_000);
});

test("deeply nested lists and quotes with text at every level keep the output linear", async () => {
  const n = 100_000;
  const t0 = performance.now();
  const lists = await html("<ul><li>x".repeat(n));
  const quotes = await html("<blockquote>q".repeat(n));
  expect(lists.length).toBeLessThan(n * 40);
  expect(quotes.length).toBeLessThan(n * 40);
  expect(lists.split("\n").slice(0, 3)).toEqual(["- x", "  - x", "    - x"]);
  expect(quotes.split("\n\n").slice(0, 2)).toEqual(["> q", "> > q"]);
  expect(performance.now() - t0).toBeLessThan(20_000);
});

test("nested tables fold into the outer cell and stay linear", async () => {
  expect(await html("<table><tr><td>a<table><tr><td>b</td><td>c</td></tr></table></td><td>d</td></tr></table>")).toBe(
    "| a b c | d |\n| --- | --- |\n",
  );
  const t0 = performance.now();
  const md = await html("<table><tr><td>x".repeat(100_000));
  expect(md.length).toBeLessThan(100_000 * 4);
  expect(md.startsWith("| x x x")).toBe(true);
  expect(performance.now() - t0).toBeLessThan(20_000);
});
