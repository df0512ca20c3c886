// Tiles as cheap as their content allows: a tall page is scaled by its longer side, a grey page is
// written as greyscale, and the encoder's output decodes to the very pixels it was given.
import { expect, test } from "bun:test";
import { MAX_ASPECT, renderPdfPreviews } from "../../src/ingest/preview.ts";
import { encodeOpaquePng } from "../../src/ingest/png.ts";
import { noisePdf } from "../ingest/noise-pdf.ts";
import { pngSize, textPdf } from "./fixtures.ts";

const COLOR_TYPE = 25; // byte offset of the colour type in a PNG's IHDR

test("a 612×2448 pt page (the audit's shape) fits 1024 px on its longer side: 512×2048, not 1024×4096", async () => {
  expect(MAX_ASPECT).toBe(2);
  const tiles = [];
  for await (const t of renderPdfPreviews(noisePdf(1, { imageWidth: 64, imageHeight: 256 }))) tiles.push({ size: t.size, ...pngSize(t.png) });
  expect(tiles).toEqual([{ size: "MEDIUM", width: 512, height: 2048 }, { size: "SMALL", width: 120, height: 480 }]);
});

// The page's Helvetica is drawn from pdf.js's standard font data (src/ingest/standard-fonts.ts) as
// unhinted, anti-aliased outlines, as every embedded font is (pages of real PDFs: 100–110 KB per
// MEDIUM tile); the machine's hinted system fonts, used before, compressed to ~44 KB for both tiles.
test("a text page is greyscale and both its tiles together stay under 160 KB", async () => {
  let total = 0;
  for await (const t of renderPdfPreviews(await textPdf(1, 40))) {
    expect(t.png[COLOR_TYPE]).toBe(0);
    total += t.png.length;
  }
  expect(total).toBeGreaterThan(0);
  expect(total).toBeLessThan(160_000); // the canvas library's RGBA encoder wrote ~340 KB for this page
});

test("encodeOpaquePng round-trips colour and grey pixels exactly", async () => {
  const { createCanvas, loadImage } = await import("@napi-rs/canvas");
  for (const colour of [true, false]) {
    const w = 37, h = 11;
    const rgba = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      const v = (i * 97) & 0xff;
      rgba.set(colour ? [v, 255 - v, (v * 3) & 0xff, 255] : [v, v, v, 255], i * 4);
    }
    const png = encodeOpaquePng(rgba, w, h);
    expect(png[COLOR_TYPE]).toBe(colour ? 2 : 0);
    const img = await loadImage(Buffer.from(png));
    const c = createCanvas(w, h);
    c.getContext("2d").drawImage(img, 0, 0);
    expect([...c.getContext("2d").getImageData(0, 0, w, h).data]).toEqual([...rgba]);
  }
});
