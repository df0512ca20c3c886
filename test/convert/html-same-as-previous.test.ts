import { expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/ingest/convert/html-to-markdown.ts";
import { htmlToMarkdown as htmlToMarkdownPrevious } from "../../scripts/lib/html-previous/html-to-markdown.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";

// A block's inline text is now held in pieces joined now and then, and its lines are written one at
// a time instead of from arrays of them all (30 MB of "x<br>" reached 746 MiB). The markdown must be
// exactly what the previous writer (scripts/lib/html-previous/) gave.

const BITS = [
  "x", "two words", " ", "\n", "\t", "&nbsp;", "\u00a0", "<br>", "<br/>", "<br><br>", "# not", "- not", "1. not", "> not", "|",
  "<p>", "</p>", "<h1>", "</h1>", "<h3>", "</h3>", "<ul>", "</ul>", "<ol start=\"3\">", "</ol>", "<li>", "</li>",
  "<blockquote>", "</blockquote>", "<pre>", "</pre>", "<table>", "</table>", "<tr>", "<td>", "</td>", "<th>", "</tr>",
  "<div>", "</div>", "<hr>", "<img alt=\"pic\">", "<b>", "</b>", "<script>s</script>", "&amp;", "``` fence",
  // read from the Scanner in place since: attribute names in any case, repeated, with entities; raw text
  "<IMG ALT='a &amp; b'>", "<img alt=1 alt=2>", "<img alt>", "<img/>", "<OL START=5>", "<ol start=x>", "</OL>", "<LI>", "<BR/>",
  "<Style>p{}</STYLE>", "<title>t</title>", "<!-- c -->", "<![CDATA[<x>]]>", "<p\nclass=a>", "</br>",
];

function randomHtml(rand: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += BITS[Math.floor(rand() * BITS.length)]!;
  return s;
}

test("on 4,000 seeded random pages, and pages of more than 8,192 inline pieces", () => {
  const rand = rng(2026);
  const pages = ["", "x<br>".repeat(20_000), "<h2>" + "a<br>".repeat(10_000) + "</h2>", "<ul><li>" + "b<br> ".repeat(10_000) + "</ul>"];
  pages.push("<blockquote><ol><li>" + "- c<br>\n".repeat(9_000) + "</ol></blockquote>", "<br>".repeat(20_000), " ".repeat(20_000));
  for (let i = 0; i < 4000; i++) pages.push(randomHtml(rand, Math.floor(rand() * 80)));
  for (let i = 0; i < 5; i++) pages.push(randomHtml(rand, 30_000));
  for (const html of pages) expect(htmlToMarkdown(html), JSON.stringify(html.slice(0, 500))).toBe(htmlToMarkdownPrevious(html));
});
