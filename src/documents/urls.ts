import { badRequest, conflict } from "../http/errors.ts";
import { previewKey } from "../store/blob-keys.ts";
import type { BlobStore } from "../store/blob.ts";
import type { Presigner } from "../storage/presigner.ts";
import type { DocRow } from "./rows.ts";

export const MAX_PREVIEW_PAGES = 10;
export const PREVIEW_SIZES = ["SMALL", "MEDIUM"] as const;

export interface DownloadUrl {
  documentId: string;
  filename: string;
  contentType: string;
  url: string;
  expiresAt: string;
}

export interface PreviewUrls {
  documentId: string;
  expiresAt: string;
  items: { page: number; size: (typeof PREVIEW_SIZES)[number]; url: string }[];
}

/** A short-lived GET URL for the original file, served with the document's content type. */
export async function downloadUrl(blobs: BlobStore, sign: Presigner, r: DocRow, now: number, origin: string): Promise<DownloadUrl> {
  await requireUpload(blobs, r);
  const u = sign.get(r.blob_key, r.content_type, now, r.generation);
  return { documentId: r.id, filename: r.filename, contentType: r.content_type, url: origin + u.path, expiresAt: new Date(u.expiresAt).toISOString() };
}

/**
 * `pages` as sent: repeated and/or comma-separated zero-based indices, 1 to 10 values, none
 * negative. Duplicates are answered once. Whether the pages can exist is pagesInRange's question.
 */
export function parsePages(raw: string[]): number[] {
  const values = raw.flatMap((v) => v.split(",")).map((v) => v.trim());
  if (values.length === 0 || values.every((v) => v === "")) throw badRequest("Invalid query parameter 'pages': required, 1 to 10 zero-based page indices");
  if (values.length > MAX_PREVIEW_PAGES) throw badRequest(`Invalid query parameter 'pages': at most ${MAX_PREVIEW_PAGES} pages per request, got ${values.length}`);
  const pages: number[] = [];
  for (const v of values) {
    if (!/^-?\d+$/.test(v)) throw badRequest(`Invalid query parameter 'pages': "${v.slice(0, 32)}" is not an integer`);
    const n = Number(v);
    if (n < 0) throw badRequest(`Invalid query parameter 'pages': ${n} is negative (indices are zero-based)`);
    // Before ingestion counts the pages any index is accepted, but never one a number cannot hold exactly.
    if (!Number.isSafeInteger(n)) throw badRequest(`Invalid query parameter 'pages': "${v.slice(0, 32)}" is too large`);
    if (!pages.includes(n)) pages.push(n);
  }
  return pages;
}

/** What is known of a document's pages when its preview URLs are asked for. */
export interface PageBounds {
  nbPages: number;
  /** nbPages is final: counted (> 0), or 0 for a document that has no pages (READY, or not a PDF). */
  known: boolean;
  /** Pages at or past this index are never rendered (--preview-max-pages); null when previews are not for this document. */
  renderLimit: number | null;
}

/** "1 page (0)" or "N pages (0 to N-1)": a one-page PDF was said to have "1 pages (0 to 0)". */
const pageSpan = (n: number) => (n === 1 ? "1 page (0)" : `${n} pages (0 to ${n - 1})`);

/**
 * Refuses, in order, pages of a document known to have none, pages at or above a known nbPages,
 * and pages past the preview-rendering limit: their tiles would never exist, so a URL could only 404.
 */
export function pagesInRange(pages: number[], b: PageBounds): void {
  if (b.known && b.nbPages === 0) throw badRequest("Invalid query parameter 'pages': this document has no pages to preview");
  for (const n of pages) {
    if (b.known && n >= b.nbPages) throw badRequest(`Invalid query parameter 'pages': ${n} is out of range; the document has ${pageSpan(b.nbPages)}`);
  }
  if (b.renderLimit === null) return;
  const past = pages.find((n) => n >= b.renderLimit!);
  if (past === undefined) return;
  if (b.renderLimit === 0) throw badRequest("Invalid query parameter 'pages': previews are turned off on this server (--preview-max-pages 0)");
  throw badRequest(
    b.renderLimit === 1
      ? `Invalid query parameter 'pages': ${past} is past the preview limit; previews are rendered for the first page only (0, --preview-max-pages)`
      : `Invalid query parameter 'pages': ${past} is past the preview limit; previews are rendered for the first ${b.renderLimit} pages only (0 to ${b.renderLimit - 1}, --preview-max-pages)`,
  );
}

/** The 409 download-url gives: no preview can exist of a document nothing has been uploaded for. */
export async function requireUpload(blobs: BlobStore, r: DocRow): Promise<void> {
  if (!(await blobs.stat(r.blob_key))) throw conflict("Nothing has been uploaded for this document yet");
}

/** SMALL and MEDIUM PNG tiles of the current generation; a tile not rendered yet answers 404 at its URL. */
export function previewUrls(sign: Presigner, r: DocRow, pages: number[], now: number, origin: string): PreviewUrls {
  let expiresAt = 0;
  const items = pages.flatMap((page) =>
    PREVIEW_SIZES.map((size) => {
      const u = sign.get(previewKey(r.org_id, r.id, r.generation, page, size), "image/png", now, r.generation);
      expiresAt = u.expiresAt;
      return { page, size, url: origin + u.path };
    }),
  );
  return { documentId: r.id, expiresAt: new Date(expiresAt).toISOString(), items };
}
