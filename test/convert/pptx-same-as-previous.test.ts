import { expect, test } from "bun:test";
import { pptxToMarkdown } from "../../src/ingest/convert/pptx.ts";
import { pptxToMarkdown as pptxToMarkdownPrevious } from "../../scripts/lib/pptx-previous.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";
import { pptx } from "./pptx-fixture.ts";

// Slides are now read with the tokenizer's Scanner instead of its token objects. The markdown (or
// the error) must be exactly what the previous converter (scripts/lib/pptx-previous.ts) gave.

const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
const BITS = [
  "<p:sp>", "</p:sp>", "<p:ph type=\"title\"/>", "<p:ph type='ctrTitle'/>", "<p:ph type=\"body\"/>", "<p:ph TYPE=\"title\"/>",
  "<p:ph type=\"title\" type=\"body\"/>", "<p:ph type=\"body\" type=\"title\">", "<p:ph type=\"t&#105;tle\"/>", "<ph type=title>",
  "<a:p>", "</a:p>", "<a:r>", "</a:r>", "<a:t>", "</a:t>", "<a:t/>", "<a:br/>", "<a:br>", "x y", "# h", "&amp;", "|", "  ",
  "<a:tbl>", "</a:tbl>", "<a:tr>", "</a:tr>", "<a:tc>", "</a:tc>", "<![CDATA[c<d]]>", "<p>", "</p>", "<t>", "</t>", "<!-- c -->",
  "<a:p><a:r><a:t>word</a:t></a:r></a:p>",
];

const LIMITS = { maxUncompressedBytes: 200 * 2 ** 20, maxZipEntries: 10_000 };
const outcome = (f: () => string) => {
  try {
    return f();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
};

test("on 1,500 seeded random slides, the markdown is the previous converter's", async () => {
  const rand = rng(1501);
  for (let i = 0; i < 1500; i++) {
    let body = "";
    for (let k = Math.floor(rand() * 60); k > 0; k--) body += BITS[Math.floor(rand() * BITS.length)]!;
    const bytes = await pptx({ "ppt/slides/slide1.xml": `<?xml version="1.0"?><p:sld ${P}><p:cSld><p:spTree>${body}</p:spTree></p:cSld></p:sld>` });
    expect(outcome(() => pptxToMarkdown(bytes, LIMITS)), JSON.stringify(body)).toBe(outcome(() => pptxToMarkdownPrevious(bytes, LIMITS)));
  }
}, 120_000);
