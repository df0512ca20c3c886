// Text extraction benchmark: convert() on a generated 200-page text PDF versus unpdf's bare extractText
// on the same bytes, in the same run. Usage: bun scripts/bench-extract.ts [pages] [rounds]
import { PDFDocument, StandardFonts } from "pdf-lib";
import { extractText, getDocumentProxy } from "unpdf";
import { convert } from "../src/ingest/convert/index.ts";
import { renderPdfPreviews } from "../src/ingest/preview.ts";

const PAGES = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 3);

async function makePdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const body = await doc.embedFont(StandardFonts.TimesRoman);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Section ${p}: findings and discussion`, { x: 50, y: 790, size: 18, font: bold });
    for (let l = 0; l < 45; l++) {
      const y = 760 - l * 15 - (l >= 20 ? 12 : 0);
      page.drawText(`Line ${l + 1} of page ${p}: the quick brown fox jumps over the lazy dog, again and again.`, {
        x: 50, y, size: 11, font: body,
      });
    }
  }
  return doc.save();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const bytes = await makePdf(PAGES);
console.log(`PDF: ${PAGES} pages, ${(bytes.byteLength / 1024).toFixed(0)} KiB`);

// one warm-up of each so module loading and JIT are not charged to the first timed run
await convert(bytes, "application/pdf");
await extractText(await getDocumentProxy(bytes.slice()), { mergePages: false });

const tConvert: number[] = [];
const tBare: number[] = [];
let chars = 0;
for (let r = 0; r < ROUNDS; r++) {
  let t0 = performance.now();
  const out = await convert(bytes, "application/pdf");
  tConvert.push(performance.now() - t0);
  chars = out.markdown.length;
  t0 = performance.now();
  const bare = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: false });
  tBare.push(performance.now() - t0);
  if (bare.totalPages !== PAGES || out.nbPages !== PAGES) throw new Error("page count mismatch");
}
const c = median(tConvert);
const b = median(tBare);
console.log(`convert():         ${c.toFixed(0)} ms  (${((PAGES * 1000) / c).toFixed(0)} pages/s, ${chars} chars of markdown)`);
console.log(`unpdf extractText: ${b.toFixed(0)} ms  (${((PAGES * 1000) / b).toFixed(0)} pages/s)`);
console.log(`overhead of convert() over bare extraction: ${(c / b).toFixed(2)}x  (median of ${ROUNDS} rounds)`);

const previewPages = Math.min(10, PAGES);
const t0 = performance.now();
let tiles = 0;
for await (const _ of renderPdfPreviews(bytes, Array.from({ length: previewPages }, (_, i) => i))) tiles++;
const tp = performance.now() - t0;
console.log(`previews: ${tiles} tiles for ${previewPages} pages in ${tp.toFixed(0)} ms (${(tp / previewPages).toFixed(0)} ms/page)`);
