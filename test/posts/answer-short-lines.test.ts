// End to end on the built-in tier: a fact written as a bullet or as a slide line is answered
// after ingestion (converted, chunked, stored, retrieved), even beside documents with prose.
// Both questions answered "The documents do not contain the answer to this question." while
// every short unpunctuated line was taken for a heading.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { zipOf } from "../convert/fixtures.ts";
import { PPTX } from "../../src/ingest/formats.ts";
import { ask, corpus, ingest, session } from "./helpers.ts";

const OFFICE_GUIDE = `# Office guide

Welcome to the office. Please read this guide carefully before your first day.

## Fees

- Parking fee is 12 euros per month
- Locker deposit is 20 euros
`;

const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const shape = (ph: string, paras: string[]) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="1" name="s"/><p:cNvSpPr/><p:nvPr>${ph ? `<p:ph type="${ph}"/>` : ""}</p:nvPr></p:nvSpPr>` +
  `<p:txBody>${paras.map((t) => `<a:p><a:r><a:t>${t}</a:t></a:r></a:p>`).join("")}</p:txBody></p:sp>`;

/** One slide: a title and short body lines, none ending in punctuation. */
const deck = () =>
  zipOf({
    "[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`,
    "ppt/presentation.xml": `<?xml version="1.0"?><p:presentation ${P}><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId2" Type="slide" Target="slides/slide1.xml"/></Relationships>`,
    "ppt/slides/slide1.xml": `<?xml version="1.0"?><p:sld ${P}><p:cSld><p:spTree>${
      shape("title", ["Q3 review"]) + shape("", ["Quarterly narwhal sales rose 17 percent", "Walrus imports stayed flat"])
    }</p:spTree></p:cSld></p:sld>`,
  });

let k: Kbqa;
let org: Org;
let guide: string;
let slides: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  guide = await corpus(org, "guide");
  slides = await corpus(org, "slides");
  await ingest(k, org, guide, "office-guide.md", OFFICE_GUIDE);
  await ingest(k, org, slides, "q3.pptx", await deck(), PPTX);
}, 120_000);
afterAll(() => k?.stop());

describe("short lines are answered end to end", () => {
  test("a markdown bullet answers, beside the guide's prose", async () => {
    const sid = await session(org, [guide]);
    const r = await ask(org, sid, "How much is the parking fee?");
    expect(r.status).toBe(200);
    expect(r.body.answer.body).toMatch(/^Parking fee is 12 euros per month \[\d+\]$/);
    expect(r.body.answer.lang).toEqual("en");
  });

  test("a slide line answers in a session whose other corpus holds prose", async () => {
    const sid = await session(org, [guide, slides]);
    const r = await ask(org, sid, "How much did quarterly narwhal sales rise?");
    expect(r.status).toBe(200);
    expect(r.body.answer.body).toMatch(/^Quarterly narwhal sales rose 17 percent \[\d+\]$/);
  });
});
