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
  if (!(await blobs.stat(r.blob_key))) throw conflict("Nothing has been uploaded for this document yet");
  const u = sign.get(r.blob_key, r.content_type, now, r.generation);
  return { documentId: r.id, filename: r.filename, contentType: r.content_type, url: origin + u.path, expiresAt: new Date(u.expiresAt).toISOString() };
}

/**
 * `pages` as sent: repeated and/or comma-separated zero-based indices, 1 to 10 values,
 * none negative nor at or above nbPages once that is known: counted (nbPages > 0), or the
 * document READY, when 0 means it has no pages and so no tile will ever exist. Duplicates are
 * answered once.
 */
export function parsePages(raw: string[], nbPages: number, known = nbPages > 0): number[] {
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
    if (known && nbPages === 0) throw badRequest("Invalid query parameter 'pages': this document has no pages to preview");
    if (known && n >= nbPages) throw badRequest(`Invalid query parameter 'pages': ${n} is out of range; the document has ${nbPages} pages (0 to ${nbPages - 1})`);
    if (!pages.includes(n)) pages.push(n);
  }
  return pages;
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
