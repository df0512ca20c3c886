import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { PPTX } from "../../src/ingest/formats.ts";
import { sniff } from "../../src/ingest/sniff.ts";
import { pptx } from "./pptx-fixture.ts";

test("PPTX slides become ## sections in presentation order with text and tables", async () => {
  const bytes = await pptx();
  expect(sniff(bytes, PPTX)).toBeNull();
  expect(await convert(bytes, PPTX)).toEqual({
    nbPages: 0,
    markdown:
      "## Quarterly & Review\n\nRevenue grew\n\n\\# Costs fell\n\n## Slide 2\n\nNo title here\n\n| k | v\\|w |\n| --- | --- |\n",
  });
});

test("a PPTX slide with a DOCTYPE is refused", async () => {
  const evil = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><p:sld/>`;
  const err = await convert(await pptx({ "ppt/slides/slide2.xml": evil }), PPTX).catch((e) => e);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.message).toContain("ppt/slides/slide2.xml contains a DOCTYPE");
});
