// The one mammoth function used beyond its public API: where the document's parts are, found as
// mammoth itself finds them (docx.ts slices the part it will read as the main document).
declare module "mammoth/lib/docx/docx-reader.js" {
  export function _findPartPaths(file: unknown): PromiseLike<{
    mainDocument: string; comments: string; endnotes: string; footnotes: string; numbering: string; styles: string;
  }>;
}
