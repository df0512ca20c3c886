// pdf.js's standard font files, imported `with { type: "file" }` (standard-fonts.ts): the import is their path.
declare module "pdfjs-dist/standard_fonts/*" {
  const path: string;
  export default path;
}
