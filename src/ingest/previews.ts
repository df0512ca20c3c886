/**
 * Page previews of a READY PDF, rendered in the worker pool at low priority (parsing of other
 * documents always goes first) in small page batches, so one long PDF neither holds a worker for
 * minutes nor hits the per-request time limit. Best effort: a failure is logged, never surfaces
 * on the document; a tile that does not exist answers 404 at the URL route.
 *
 * Bounded per document: a small PDF can ask for any number of pages each as costly to render as
 * the tile's pixels allow (pages sharing one noise image: 14 MB of PNG per page from a few
 * hundred bytes of PDF), so rendering stops at `maxPages` pages or before the page that would take
 * the document's tiles past its byte budget (byteBudget), and never eats into the last `reserveBytes` of the data
 * volume, which ingestion and the database need more than previews do. A page is written whole
 * (both sizes) or not at all; a page pdf.js cannot draw is logged and skipped, and the pages after
 * it are drawn. The tiles not written stay 404, as the spec allows for tiles not
 * generated; the document stays READY; the cut is logged ("previews cut", with the reason).
 * Tiles of a replaced generation can never be served again (their URLs name the generation) and
 * are removed, so re-committing a document does not add a budget each time.
 *
 * Durable (preview-jobs.ts): progress is recorded after each batch, and a rendering cut short by a
 * stop, a crash or a full volume resumes at the next start from the first page not finished, with
 * the budget counting the tiles already written.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import type { Logger } from "../context.ts";
import type { BlobStore } from "../store/blob.ts";
import { documentKey, previewDirKey, previewKey, previewSkippedKey } from "../store/blob-keys.ts";
import type { Db } from "../store/db.ts";
import { freeBytes, storageFailure } from "../store/storage-errors.ts";
import { briefMessage } from "./convert/errors.ts";
import { loadDoc } from "./job-store.ts";
import { advancePreviews, countPreviewStart, endPreviews, previewProgress, UNKNOWN_NEXT_PAGE } from "./preview-jobs.ts";
import { WorkerExited, type WorkerPool } from "./pool.ts";
import type { WorkerMessage } from "./worker.ts";

export const PREVIEW_BATCH = 8;

export interface PreviewJob {
  orgId: string;
  documentId: string;
  generation: number;
  blobKey: string;
  nbPages: number;
}

export interface PreviewLimits {
  maxPages: number;
  maxBytes: number;
  bytesRatio: number;
  reserveBytes: number;
  /** Directory on the data volume whose free space is checked before each page. */
  dataDir: string;
}

/**
 * A document's preview bytes: `maxBytes`, or `bytesRatio` times its original when that is more.
 * A fixed figure alone would either cut scans short (a scanned page's tile is 2–3 MB of PNG, so a
 * 300-page scan needs ~750 MB) or let every small upload claim a scan's share; tied to the
 * original, which is stored and counted in storage usage, previews never take more than
 * `bytesRatio` times the uploaded bytes beyond the fixed allowance per document.
 */
export function byteBudget(limits: Pick<PreviewLimits, "maxBytes" | "bytesRatio">, originalBytes: number): number {
  return Math.max(limits.maxBytes, limits.bytesRatio * originalBytes);
}

/** Why a document's previews stopped short of its last page. */
export type PreviewCut = "pages" | "bytes" | "disk";

/** The page-by-page decision, apart from rendering and storage. */
export class PreviewBudget {
  constructor(
    private readonly limits: Pick<PreviewLimits, "maxPages" | "maxBytes" | "reserveBytes">,
    /** Free bytes on the data volume now; null when unknown (then only a write failure stops). */
    private readonly free: () => number | null,
    /** Pages and bytes already written, when a rendering resumes. */
    public pages = 0,
    public bytes = 0,
  ) {}

  /** Pages of a document of `nbPages` that may be rendered at all. */
  planned(nbPages: number): number {
    return Math.max(0, Math.min(nbPages, this.limits.maxPages));
  }

  /** Whether a page whose tiles take `bytes` may be written; counts it when it may. */
  admit(bytes: number): PreviewCut | null {
    if (this.pages >= this.limits.maxPages) return "pages";
    if (this.bytes + bytes > this.limits.maxBytes) return "bytes";
    const free = this.free();
    if (free !== null && free - bytes < this.limits.reserveBytes) return "disk";
    this.pages++;
    this.bytes += bytes;
    return null;
  }
}

type Tile = Extract<WorkerMessage, { type: "preview" }>;
type Deps = {
  db: Db; blobs: BlobStore; pool: WorkerPool; log: Logger; volumeFailed?: (e: unknown) => void;
  /** True once the server is stopping: a rendering cut short then is resumed at the next start. */
  closing?: () => boolean;
};

export async function renderPreviews(deps: Deps, p: PreviewJob, limits: PreviewLimits): Promise<number> {
  let begun: ReturnType<typeof previewProgress>;
  try {
    begun = previewProgress(deps.db, p);
  } catch (e) {
    deps.log.error("could not start a document's previews; the next start will", { documentId: p.documentId, error: briefMessage(e) });
    return 0;
  }
  if (!begun) return 0; // already done, or the document changed since
  const path = deps.blobs.filePath?.(p.blobKey);
  const original = (await deps.blobs.stat(p.blobKey).catch(() => null))?.size ?? 0;
  const maxBytes = byteBudget(limits, original);
  // Tiles of an older build: whole pages from the first are kept, the rest rendered (resumeTiles
  // removes what follows the first incomplete page and counts the bytes of those before it).
  const unknown = begun.nextPage === UNKNOWN_NEXT_PAGE;
  const from = unknown ? finishedPages(deps, p) : begun.nextPage;
  const resumed = unknown || begun.starts > 0;
  const budget = new PreviewBudget({ ...limits, maxBytes }, () => freeBytes(limits.dataDir), from, resumed ? resumeTiles(deps, p, from) : 0);
  const planned = budget.planned(p.nbPages);
  let full: PreviewCut | null = null; // the byte budget or the reserve refused a page: no more pages
  let stopped = false; // replaced, deleted, or the volume failed: nothing to report as a cut
  let resumable = false; // cut short by a stop or the data volume: the row stays for the next start
  let written = 0;
  let counted = false; // this rendering's start, counted when a worker begins its first batch
  await dropPreviews(deps, p, (g) => g < p.generation); // never a newer one: this renderer may be late
  if (resumed && from < planned) deps.log.info("previews resumed", { documentId: p.documentId, generation: p.generation, fromPage: from, nbPages: p.nbPages, start: begun.starts + 1 });
  try {
    for (let first = from; first < planned && !full; first += PREVIEW_BATCH) {
      if (!isCurrent(deps.db, p)) {
        stopped = true;
        break;
      }
      const bytes = path ? undefined : ((await deps.blobs.get(p.blobKey)) ?? undefined);
      const pages = Array.from({ length: Math.min(PREVIEW_BATCH, planned - first) }, (_, i) => first + i);
      const puts: Promise<unknown>[] = [];
      const halves = new Map<number, Tile>();
      await deps.pool.run({ type: "previews", path, bytes, pages }, {
        priority: "low",
        onStart: () => {
          if (counted) return;
          counted = true;
          countPreviewStart(deps.db, p);
        },
        onMessage: (m) => {
          if (full) return;
          if (m.type === "preview-skipped") {
            // The page's own fault, the same at every try: its tiles stay 404, the next pages are drawn.
            halves.delete(m.page);
            deps.log.info("preview page not rendered", { documentId: p.documentId, generation: p.generation, page: m.page, reason: m.reason });
            // Only lets the tiles' 404 say why: a marker that cannot be written leaves the usual 404.
            puts.push(deps.blobs.put(previewSkippedKey(p.orgId, p.documentId, p.generation, m.page), "").catch(() => {}));
            return;
          }
          if (m.type !== "preview") return;
          const other = halves.get(m.page);
          if (!other) return void halves.set(m.page, m);
          halves.delete(m.page);
          full = budget.admit(other.png.length + m.png.length);
          if (full) return;
          for (const t of [other, m]) {
            const put = deps.blobs.put(previewKey(p.orgId, p.documentId, p.generation, t.page, t.size), t.png).then(() => written++);
            // Marked handled at once: a put that fails while the batch still renders (its document
            // deleted and the tile directory dropped under it: ENOENT on the rename) was an
            // unhandled rejection until Promise.all below, and Bun aborted the server (a 35-minute
            // soak, SIGABRT). Promise.all still sees the failure and the batch stops as before.
            put.catch(() => {});
            puts.push(put);
          }
        },
      });
      await Promise.all(puts);
      if (!full) advancePreviews(deps.db, p, first + pages.length);
    }
  } catch (e) {
    stopped = true;
    // Also a worker that exited under the rendering (killed from outside, or a native fault on a
    // page): tried again at the next start, given up after MAX_PREVIEW_STARTS without progress.
    resumable = deps.closing?.() === true || !!storageFailure(e) || e instanceof WorkerExited;
    if (deps.closing?.()) {
      // The pool was closed under this rendering: the next start resumes it.
    } else if (storageFailure(e)) {
      deps.volumeFailed?.(e);
      deps.log.error("previews stopped: the data volume cannot be written", { documentId: p.documentId, failure: storageFailure(e), error: briefMessage(e) });
    } else deps.log.error("preview rendering failed", { documentId: p.documentId, error: e instanceof Error ? e.message : String(e) });
  }
  try {
    // A renderer replaced mid-batch may have written after the new generation cleared the old tiles,
    // or a deleted document's after its vector drop removed them.
    const doc = loadDoc(deps.db, p.orgId, p.documentId);
    if (!doc || doc.deleted_at !== null) await dropPreviews(deps, p, () => true);
    else if (doc.generation !== p.generation) await dropPreviews(deps, p, (g) => g === p.generation);
  } catch (e) {
    deps.log.error("could not check a document after its previews", { documentId: p.documentId, error: briefMessage(e) });
  }
  // The free-space reserve is not the document's fault: its pages are tried again at the next start.
  if (full === "disk") resumable = true;
  if (!resumable) {
    try {
      endPreviews(deps.db, p);
    } catch (e) {
      deps.log.error("could not record the end of a document's previews", { documentId: p.documentId, error: briefMessage(e) });
    }
  }
  const cut: PreviewCut | null = full ?? (planned < p.nbPages ? "pages" : null);
  if (cut && !stopped) {
    deps.log.info("previews cut", {
      documentId: p.documentId, generation: p.generation, reason: cut, pagesWritten: budget.pages, nbPages: p.nbPages,
      bytes: budget.bytes, maxPages: limits.maxPages, maxBytes, reserveBytes: limits.reserveBytes,
    });
  }
  return written;
}

/**
 * Where a resumed rendering stands: the bytes of the tiles of pages before `from`, already spent
 * of its budget. Tiles of later pages were written by the interrupted batch, perhaps one of a
 * page's two: they are removed, so that a page has both tiles or none even if the budget now
 * stops before it.
 */
function resumeTiles(deps: Deps, p: PreviewJob, from: number): number {
  const dir = deps.blobs.filePath?.(previewDirKey(p.orgId, p.documentId, p.generation));
  if (!dir) return 0;
  let n = 0;
  try {
    for (const f of readdirSync(dir)) {
      const page = /^(\d+)-(SMALL|MEDIUM)\.png$/.exec(f)?.[1];
      if (page === undefined) continue;
      if (Number(page) < from) n += statSync(`${dir}/${f}`).size;
      else rmSync(`${dir}/${f}`, { force: true });
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") deps.log.error("could not measure written previews", { documentId: p.documentId, error: briefMessage(e) });
  }
  return n;
}

/** How many pages, from the first, have both their tiles on disk (0 for a store without files). */
function finishedPages(deps: Deps, p: PreviewJob): number {
  const dir = deps.blobs.filePath?.(previewDirKey(p.orgId, p.documentId, p.generation));
  if (!dir) return 0;
  const tiles = new Set<string>();
  try {
    for (const f of readdirSync(dir)) tiles.add(f);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") deps.log.error("could not list written previews", { documentId: p.documentId, error: briefMessage(e) });
    return 0;
  }
  let n = 0;
  while (tiles.has(`${n}-SMALL.png`) && tiles.has(`${n}-MEDIUM.png`)) n++;
  return n;
}

function isCurrent(db: Db, p: PreviewJob): boolean {
  const doc = loadDoc(db, p.orgId, p.documentId);
  return !!doc && doc.deleted_at === null && doc.generation === p.generation && doc.status === "READY";
}

/**
 * Removes the preview tiles of a deleted document (every generation), or of one generation given
 * new content: no URL can serve them any more (spec: 404 after a delete). Called by the vector
 * drops that the deleting transaction records (documents/vector-drops.ts), so a document of a
 * deleted corpus, and a server stopped in between, are covered too. Tiles are up to
 * --preview-bytes-ratio times the original each: before, every deleted PDF left them for good
 * (the soak test, scripts/soak.ts: 2.4 MB more per 1,000 operations, without bound). The original
 * stays, as documented. Off the event loop: a corpus' drops come 500 documents at a time.
 */
export const removePreviews = (blobs: BlobStore, log: Logger, orgId: string, documentId: string, generation?: number): Promise<void> =>
  dropPreviews({ blobs, log }, { orgId, documentId }, (g) => generation === undefined || g === generation);

/**
 * Removes the preview directories of the document's generations matching `which` (file-based
 * store only), off the event loop.
 */
async function dropPreviews(deps: Pick<Deps, "blobs" | "log">, p: Pick<PreviewJob, "orgId" | "documentId">, which: (generation: number) => boolean): Promise<void> {
  const docDir = deps.blobs.filePath?.(documentKey(p.orgId, p.documentId));
  if (!docDir) return;
  try {
    for (const entry of await readdir(docDir)) {
      const m = /^g(\d+)$/.exec(entry);
      if (m && which(Number(m[1]))) await rm(deps.blobs.filePath!(previewDirKey(p.orgId, p.documentId, Number(m[1]))), { recursive: true, force: true });
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") deps.log.error("could not remove previews", { documentId: p.documentId, error: briefMessage(e) });
  }
}
