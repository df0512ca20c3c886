import { createIsomorphicCanvasFactory } from "unpdf";
import { openPdf } from "./convert/pdf.ts";
import { encodeOpaquePng } from "./png.ts";
import { StandardFontDataFactory } from "./standard-fonts.ts";

export const PREVIEW_SIZES = { SMALL: 240, MEDIUM: 1024 } as const;
export type PreviewSize = keyof typeof PREVIEW_SIZES;

// A tall page at the nominal width would give a gigantic tile (612×2448 pt at 1024 px wide was
// 1024×4096, 14 MB of PNG for a noise image): the height is capped at this multiple of the width,
// so such a page is scaled by its longer side. 2 keeps every common paper size (A-series 1.41,
// Letter 1.29, Legal 1.65, Tabloid 1.55) at the full width; the cap bounds a MEDIUM tile to
// 1024×2048 pixels.
export const MAX_ASPECT = 2;

const canvasModule = () => import("@napi-rs/canvas");

export type RenderedTile = { page: number; size: PreviewSize; png: Uint8Array };

/**
 * Renders the given 0-based page indices (all pages when omitted; out-of-range indices are skipped) of a PDF
 * to PNG, each page rendered once at MEDIUM and downscaled for SMALL. A page that cannot be drawn
 * yields no tiles, or only its MEDIUM one, and is reported to `onSkipped` before the next page.
 */
export async function* renderPdfPreviews(
  bytes: Uint8Array,
  pages?: number[],
  onSkipped?: (page: number, reason: string) => void,
): AsyncGenerator<RenderedTile> {
  const { createCanvas } = await canvasModule();
  const CanvasFactory = await createIsomorphicCanvasFactory(canvasModule);
  // The standard fonts' glyphs come with the service, never from the machine's installed fonts
  // (useSystemFonts false is pdf.js's default under Node; stated so a change of default cannot
  // bring the dependency back).
  const pdf = await openPdf(bytes, { CanvasFactory, BinaryDataFactory: StandardFontDataFactory, useSystemFonts: false });
  try {
    const wanted = pages ?? Array.from({ length: pdf.numPages }, (_, i) => i);
    for (const index of wanted) {
      if (!Number.isInteger(index) || index < 0 || index >= pdf.numPages) continue;
      // A page pdf.js cannot draw (an image declaring 60000×60000 pixels: "Length out of range of
      // buffer") is the page's own fault: it used to end the whole request, so every later page
      // of the document stayed without tiles. It is reported and the next page drawn.
      try {
        yield* renderPage(pdf, index, createCanvas);
      } catch (e) {
        onSkipped?.(index, pageFailure(e));
      }
    }
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}

/** Why a page could not be drawn, in pdf.js's or the runtime's words (their stacks say nothing more about the file). */
function pageFailure(e: unknown): string {
  const err = e as Error | undefined;
  const text = err && typeof err === "object" && "message" in err ? `${err.name ?? "Error"}: ${err.message}` : String(e);
  return text.slice(0, 300);
}

async function* renderPage(
  pdf: Awaited<ReturnType<typeof openPdf>>,
  index: number,
  createCanvas: (typeof import("@napi-rs/canvas"))["createCanvas"],
): AsyncGenerator<RenderedTile> {
  const page = await pdf.getPage(index + 1);
  const base = page.getViewport({ scale: 1 });
  const scale = Math.min(PREVIEW_SIZES.MEDIUM / base.width, (PREVIEW_SIZES.MEDIUM * MAX_ASPECT) / base.height);
  const viewport = page.getViewport({ scale });
  const w = Math.max(1, Math.round(viewport.width));
  const h = Math.max(1, Math.round(viewport.height));
  const medium = createCanvas(w, h);
  const ctx = medium.getContext("2d");
  ctx.fillStyle = "#ffffff"; // PDFs assume a white page; a transparent PNG looks broken in viewers
  ctx.fillRect(0, 0, w, h);
  try {
    await page.render({ canvas: medium as never, canvasContext: ctx as never, viewport }).promise;
  } finally {
    page.cleanup();
  }
  yield { page: index, size: "MEDIUM", png: encodeOpaquePng(ctx.getImageData(0, 0, w, h).data, w, h) };

  const ratio = PREVIEW_SIZES.SMALL / PREVIEW_SIZES.MEDIUM;
  const sw = Math.max(1, Math.round(w * ratio));
  const sh = Math.max(1, Math.round(h * ratio));
  const small = createCanvas(sw, sh);
  const sctx = small.getContext("2d");
  sctx.fillStyle = "#ffffff"; // resampling may leave partly transparent edge pixels otherwise
  sctx.fillRect(0, 0, sw, sh);
  sctx.imageSmoothingEnabled = true;
  sctx.imageSmoothingQuality = "high";
  sctx.drawImage(medium, 0, 0, sw, sh);
  yield { page: index, size: "SMALL", png: encodeOpaquePng(sctx.getImageData(0, 0, sw, sh).data, sw, sh) };
}
