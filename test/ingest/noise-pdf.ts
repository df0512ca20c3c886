/**
 * The audit's hostile PDF, small: every page draws one shared image of random noise (noise does
 * not compress, so each rendered tile is as large as its pixel count allows) while the file stays
 * one image plus a few hundred bytes per page.
 */
import { deflateSync } from "node:zlib";

export function noisePdf(pages: number, opts: { imageWidth?: number; imageHeight?: number; pageWidth?: number; pageHeight?: number } = {}): Uint8Array {
  const iw = opts.imageWidth ?? 256, ih = opts.imageHeight ?? 1024;
  const pw = opts.pageWidth ?? 612, ph = opts.pageHeight ?? 2448;
  const pixels = new Uint8Array(iw * ih * 3);
  crypto.getRandomValues(pixels.subarray(0, 65536));
  // getRandomValues takes at most 64 KiB at a time.
  for (let off = 65536; off < pixels.length; off += 65536) crypto.getRandomValues(pixels.subarray(off, Math.min(off + 65536, pixels.length)));
  const image = deflateSync(pixels, { level: 1 });

  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Uint8Array | string) => {
    const u = typeof b === "string" ? enc.encode(b) : b;
    parts.push(u);
    length += u.length;
  };
  const obj = (n: number, body: string, stream?: Uint8Array) => {
    offsets[n] = length;
    push(`${n} 0 obj\n${body}\n`);
    if (stream) {
      push("stream\n");
      push(stream);
      push("\nendstream\n");
    }
    push("endobj\n");
  };
  // 1 catalog, 2 pages, 3 font, 4 image, then a page and its content per page.
  push("%PDF-1.4\n");
  const kids = Array.from({ length: pages }, (_, i) => `${5 + 2 * i} 0 R`).join(" ");
  obj(1, "<< /Type /Catalog /Pages 2 0 R >>");
  obj(2, `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`);
  obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  obj(4, `<< /Type /XObject /Subtype /Image /Width ${iw} /Height ${ih} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length ${image.length} >>`, image);
  for (let i = 0; i < pages; i++) {
    const content = enc.encode(`q ${pw} 0 0 ${ph} 0 0 cm /Im Do Q BT /F1 12 Tf 72 720 Td (noise page ${i + 1}) Tj ET`);
    obj(5 + 2 * i, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pw} ${ph}] /Resources << /Font << /F1 3 0 R >> /XObject << /Im 4 0 R >> >> /Contents ${6 + 2 * i} 0 R >>`);
    obj(6 + 2 * i, `<< /Length ${content.length} >>`, content);
  }
  const xref = length;
  const count = 5 + 2 * pages;
  push(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) push(`${String(offsets[n]).padStart(10, "0")} 00000 n \n`);
  push(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
