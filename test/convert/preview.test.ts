import { expect, test } from "bun:test";
import { PDFDocument } from "pdf-lib";
import { MAX_ASPECT, PREVIEW_SIZES, renderPdfPreviews } from "../../src/ingest/preview.ts";
import { PNG_SIGNATURE, pngSize, textPdf } from "./fixtures.ts";

const collect = async (bytes: Uint8Array, pages?: number[]) => {
  const out: { page: number; size: string; width: number; height: number; sig: number[] }[] = [];
  for await (const p of renderPdfPreviews(bytes, pages)) {
    out.push({ page: p.page, size: p.size, ...pngSize(p.png), sig: [...p.png.subarray(0, 8)] });
  }
  return out;
};

test("a 2-page PDF renders every page at MEDIUM (1024 px) and SMALL (240 px)", async () => {
  const a4 = (w: number) => Math.round((w * 842) / 595);
  expect(await collect(await textPdf(2))).toEqual([
    { page: 0, size: "MEDIUM", width: 1024, height: a4(1024), sig: PNG_SIGNATURE },
    { page: 0, size: "SMALL", width: 240, height: Math.round(a4(1024) * (240 / 1024)), sig: PNG_SIGNATURE },
    { page: 1, size: "MEDIUM", width: 1024, height: a4(1024), sig: PNG_SIGNATURE },
    { page: 1, size: "SMALL", width: 240, height: Math.round(a4(1024) * (240 / 1024)), sig: PNG_SIGNATURE },
  ]);
});

test("only the requested pages are rendered and out-of-range indices are skipped", async () => {
  const got = await collect(await textPdf(3), [2, 7, -1]);
  expect(got.map((g) => [g.page, g.size])).toEqual([[2, "MEDIUM"], [2, "SMALL"]]);
});

test("rendered text is visible: the medium tile is not a blank page", async () => {
  const { loadImage, createCanvas } = await import("@napi-rs/canvas");
  let png: Uint8Array | undefined;
  for await (const p of renderPdfPreviews(await textPdf(1), [0])) if (p.size === "MEDIUM") png = p.png;
  const img = await loadImage(Buffer.from(png!));
  const c = createCanvas(img.width, img.height);
  const ctx = c.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const data = ctx.getImageData(0, 0, img.width, 300).data;
  let dark = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i]! < 128) dark++;
  expect(dark).toBeGreaterThan(500);
});

test("an extremely tall page is capped instead of allocating a gigantic canvas", async () => {
  const doc = await PDFDocument.create();
  doc.addPage([10, 14000]);
  const got = await collect(await doc.save());
  expect(got[0]!.height).toBe(PREVIEW_SIZES.MEDIUM * MAX_ASPECT);
  expect(got[0]!.width).toBeLessThan(1024);
});
