// The formats convert() handles end to end; GET /v1/doc/accept lists exactly these.

export interface FormatInfo { contentType: string; extensions: string[]; name: string; paged: boolean }

export const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
export const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
export const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

export const ACCEPTED_FORMATS: FormatInfo[] = [
  { contentType: "application/pdf", extensions: [".pdf"], name: "PDF", paged: true },
  { contentType: DOCX, extensions: [".docx"], name: "Word document (DOCX)", paged: false },
  { contentType: XLSX, extensions: [".xlsx"], name: "Excel workbook (XLSX)", paged: false },
  { contentType: PPTX, extensions: [".pptx"], name: "PowerPoint presentation (PPTX)", paged: false },
  { contentType: "text/html", extensions: [".html", ".htm"], name: "HTML", paged: false },
  { contentType: "text/markdown", extensions: [".md", ".markdown"], name: "Markdown", paged: false },
  { contentType: "text/plain", extensions: [".txt", ".text"], name: "Plain text", paged: false },
  { contentType: "text/csv", extensions: [".csv"], name: "CSV", paged: false },
  { contentType: "application/json", extensions: [".json"], name: "JSON", paged: false },
];

/** The bare media type: lower-cased, without parameters such as "; charset=utf-8". */
export function mediaType(contentType: string): string {
  return contentType.split(";")[0]!.trim().toLowerCase();
}

const BY_TYPE = new Map(ACCEPTED_FORMATS.map((f) => [f.contentType, f]));

export function formatOf(contentType: string): FormatInfo | undefined {
  return BY_TYPE.get(mediaType(contentType));
}

export function isAccepted(contentType: string): boolean {
  return BY_TYPE.has(mediaType(contentType));
}
