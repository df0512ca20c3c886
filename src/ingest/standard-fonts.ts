// The glyphs of PDF's 14 standard fonts (Helvetica, Times, Courier, Symbol, ZapfDingbats), from
// pdf.js's own set (pdfjs-dist/standard_fonts: Liberation Sans under the OFL, Foxit's under a BSD
// licence), for preview rendering. A PDF may name these fonts without embedding them; pdf.js then
// asks for their data, and without it falls back to whatever fonts the machine has installed, so
// on a machine with none (an air-gapped minimal install, the Docker image) the text of such a page
// was simply not drawn. Imported `with { type: "file" }`, so `bun build --compile` embeds them
// (about 0.8 MB) and the executable renders them offline too.
import foxitDingbats from "pdfjs-dist/standard_fonts/FoxitDingbats.pfb" with { type: "file" };
import foxitFixed from "pdfjs-dist/standard_fonts/FoxitFixed.pfb" with { type: "file" };
import foxitFixedBold from "pdfjs-dist/standard_fonts/FoxitFixedBold.pfb" with { type: "file" };
import foxitFixedBoldItalic from "pdfjs-dist/standard_fonts/FoxitFixedBoldItalic.pfb" with { type: "file" };
import foxitFixedItalic from "pdfjs-dist/standard_fonts/FoxitFixedItalic.pfb" with { type: "file" };
import foxitSerif from "pdfjs-dist/standard_fonts/FoxitSerif.pfb" with { type: "file" };
import foxitSerifBold from "pdfjs-dist/standard_fonts/FoxitSerifBold.pfb" with { type: "file" };
import foxitSerifBoldItalic from "pdfjs-dist/standard_fonts/FoxitSerifBoldItalic.pfb" with { type: "file" };
import foxitSerifItalic from "pdfjs-dist/standard_fonts/FoxitSerifItalic.pfb" with { type: "file" };
import foxitSymbol from "pdfjs-dist/standard_fonts/FoxitSymbol.pfb" with { type: "file" };
import liberationSansBold from "pdfjs-dist/standard_fonts/LiberationSans-Bold.ttf" with { type: "file" };
import liberationSansBoldItalic from "pdfjs-dist/standard_fonts/LiberationSans-BoldItalic.ttf" with { type: "file" };
import liberationSansItalic from "pdfjs-dist/standard_fonts/LiberationSans-Italic.ttf" with { type: "file" };
import liberationSansRegular from "pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf" with { type: "file" };

/** pdf.js's file name (what it asks for) → the path of the embedded file. */
export const STANDARD_FONT_FILES: Readonly<Record<string, string>> = {
  "FoxitDingbats.pfb": foxitDingbats,
  "FoxitFixed.pfb": foxitFixed,
  "FoxitFixedBold.pfb": foxitFixedBold,
  "FoxitFixedBoldItalic.pfb": foxitFixedBoldItalic,
  "FoxitFixedItalic.pfb": foxitFixedItalic,
  "FoxitSerif.pfb": foxitSerif,
  "FoxitSerifBold.pfb": foxitSerifBold,
  "FoxitSerifBoldItalic.pfb": foxitSerifBoldItalic,
  "FoxitSerifItalic.pfb": foxitSerifItalic,
  "FoxitSymbol.pfb": foxitSymbol,
  "LiberationSans-Bold.ttf": liberationSansBold,
  "LiberationSans-BoldItalic.ttf": liberationSansBoldItalic,
  "LiberationSans-Italic.ttf": liberationSansItalic,
  "LiberationSans-Regular.ttf": liberationSansRegular,
};

/**
 * pdf.js's `BinaryDataFactory` option: it constructs the class and calls `fetch({kind, filename})`
 * for standard font data (and for CMaps and its WebAssembly decoders, which are refused here as
 * pdf.js's own Node factory refuses them without a URL: it then uses its JavaScript decoders).
 */
export class StandardFontDataFactory {
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    const path = kind === "standardFontDataUrl" ? STANDARD_FONT_FILES[filename] : undefined;
    if (!path) throw new Error(`no ${kind} data for ${filename}`);
    return new Uint8Array(await Bun.file(path).arrayBuffer());
  }
}
