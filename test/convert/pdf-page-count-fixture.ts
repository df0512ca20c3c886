// Hand-written PDFs: a one-page PDF whose page tree declares any /Count (pdf.js passes some
// impossible counts through), and any PDF from its objects.

const enc = new TextEncoder();

export function pdfDeclaringPageCount(count: string): Uint8Array {
  const content = "BT /F1 12 Tf 50 700 Td (Hello declared page count) Tj ET";
  const objs = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [3 0 R] /Count ${count} >>`,
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  return pdfOfObjects(objs);
}

/** A PDF of these objects, numbered from 1 (object 1 the catalog), with a correct cross-reference table. */
export function pdfOfObjects(objs: string[]): Uint8Array {
  let out = "%PDF-1.7\n";
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += String(o).padStart(10, "0") + " 00000 n \n";
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return enc.encode(out);
}
