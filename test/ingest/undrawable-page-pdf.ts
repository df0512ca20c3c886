/**
 * A PDF of text pages of which some cannot be drawn by pdf.js: their image XObject declares
 * 60000×60000 pixels over a few bytes of data, and pdf.js gives up on the page
 * ("RangeError: Length out of range of buffer") while its text still parses, so the document
 * becomes READY and only its preview of that page fails.
 */
import { deflateSync } from "node:zlib";
import { concatTransformationMatrix, drawObject, PDFDocument, PDFName, popGraphicsState, pushGraphicsState, StandardFonts } from "pdf-lib";

export async function pdfWithUndrawablePages(pages: number, undrawable: number[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const huge = doc.context.register(doc.context.stream(deflateSync(new Uint8Array(64)), {
    Type: "XObject", Subtype: "Image", Width: 60000, Height: 60000, ColorSpace: "DeviceRGB", BitsPerComponent: 8, Filter: "FlateDecode",
  }));
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Page ${i + 1} of the inspection manual: the valves are checked before each shift.`, { x: 72, y: 700, size: 12, font });
    if (!undrawable.includes(i)) continue;
    page.node.setXObject(PDFName.of("Huge"), huge);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(300, 0, 0, 300, 72, 200), drawObject("Huge"), popGraphicsState());
  }
  return doc.save();
}
