import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { PPTX } from "../../src/ingest/formats.ts";
import { pptx } from "./pptx-fixture.ts";

// A 3 KiB PPTX listing one 1 MB slide 1,000 times in its slide list became 1 GB of markdown (3.5 GB
// of memory in-process; in a worker, its memory limit and "split the document"). Slide text now
// counts against the archive's uncompressed-size limit, as an XLSX's cell text does.

const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));

/** One slide of `chars` characters, listed `times` times in the presentation's slide list. */
const repeated = (chars: number, times: number) => pptx({
  "ppt/presentation.xml": `<?xml version="1.0"?><p:presentation ${P}><p:sldIdLst>${'<p:sldId id="257" r:id="rId3"/>'.repeat(times)}</p:sldIdLst></p:presentation>`,
  "ppt/slides/slide1.xml": `<?xml version="1.0"?><p:sld ${P}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>${"word ".repeat(chars / 5)}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
});

test("one slide listed over and over is refused once its text passes the limit", async () => {
  const bytes = await repeated(1_000_000, 1_000);
  expect(bytes.length).toBeLessThan(10_000);
  expect(await reason(convert(bytes, PPTX, { maxUncompressedBytes: 20 * 2 ** 20 })))
    .toBe("the PPTX's slides hold more than 20 MiB of text (slides listed many times over, or table rows padded to the widest), over the limit");
});

test("slide text under the limit converts", async () => {
  const md = (await convert(await repeated(1_000, 50), PPTX, { maxUncompressedBytes: 2 ** 20 })).markdown;
  expect(md.split("## Slide").length - 1).toBe(50);
});
