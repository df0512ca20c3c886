import { expect, test } from "bun:test";
import { convert } from "../../src/ingest/convert/index.ts";
import { ACCEPTED_FORMATS, DOCX, PPTX, XLSX } from "../../src/ingest/formats.ts";
import { sniff } from "../../src/ingest/sniff.ts";
import { docx, textPdf, utf8 } from "./fixtures.ts";
import { pptx } from "./pptx-fixture.ts";
import { xlsx } from "./xlsx-fixture.ts";

const FIXTURES: Record<string, () => Promise<Uint8Array>> = {
  "application/pdf": () => textPdf(2),
  [DOCX]: () => docx(),
  [XLSX]: () => xlsx(),
  [PPTX]: () => pptx(),
  "text/html": async () => utf8("<h1>Hi</h1><p>there</p>"),
  "text/markdown": async () => utf8("# Hi\n\nthere"),
  "text/plain": async () => utf8("Hi there"),
  "text/csv": async () => utf8("a,b\n1,2"),
  "application/json": async () => utf8('{"hi":"there"}'),
};

test("every accepted format has a fixture, passes sniffing and converts end to end", async () => {
  expect(Object.keys(FIXTURES).sort()).toEqual(ACCEPTED_FORMATS.map((f) => f.contentType).sort());
  for (const f of ACCEPTED_FORMATS) {
    const bytes = await FIXTURES[f.contentType]!();
    expect([f.contentType, sniff(bytes, f.contentType)]).toEqual([f.contentType, null]);
    const out = await convert(bytes, f.contentType);
    expect(out.markdown.trim().length).toBeGreaterThan(0);
    expect([f.contentType, out.nbPages > 0]).toEqual([f.contentType, f.paged]);
    expect(f.extensions.every((e) => e.startsWith("."))).toBe(true);
  }
});
