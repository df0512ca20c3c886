import { getDocumentProxy } from "unpdf";
import { stderrLogger } from "../../context.ts";
import { ConversionError } from "./errors.ts";
import { joinPages } from "./pages.ts";
import { layoutPage, pickHeadingSizes, type PdfLine } from "./pdf-layout.ts";

type PdfDoc = Awaited<ReturnType<typeof getDocumentProxy>>;

export const NO_TEXT_LAYER =
  "the PDF has no text layer (only images or empty pages); OCR is not available offline, so it cannot be indexed";

export async function openPdf(bytes: Uint8Array, extra: Record<string, unknown> = {}): Promise<PdfDoc> {
  try {
    // pdf.js may detach the buffer it is given; work on a copy so the caller's bytes stay usable.
    // isEvalSupported is a no-op in the pdf.js build unpdf ships (no eval code path left), kept as a guard
    // in case the bundled pdf.js is swapped for one that still has it.
    const options = { isEvalSupported: false, verbosity: 0, ...extra } as Parameters<typeof getDocumentProxy>[1];
    return await getDocumentProxy(bytes.slice(), options);
  } catch (err) {
    const e = err as Error;
    if (e?.name === "PasswordException") throw new ConversionError("could not read PDF: it is password-protected");
    logPdfError("pdf.js could not open a PDF", err);
    throw new ConversionError("could not read PDF: the file is damaged (its structure cannot be read)");
  }
}

// pdf.js says what went wrong in its own terms ("Command token too long: 128"): the statusMsg says it
// in words, the log keeps the detail. Its exceptions inherit their `stack` from one Error made when
// the module loaded ("Error\n at BaseExceptionClosure"), which holds neither their name nor their
// message: logging it left only that, so the name and message lead unless the stack carries them.
function logPdfError(msg: string, err: unknown): void {
  const e = err as Error | undefined;
  const head = e instanceof Error || (typeof e === "object" && e !== null && "message" in e) ? `${e.name}: ${e.message}` : String(err);
  const stack = typeof e?.stack === "string" && e.stack.startsWith(head) ? e.stack : head;
  stderrLogger.error(msg, { error: stack.slice(0, 4000) });
}

interface RawItem { str: string; transform: number[]; width: number; height: number; hasEOL: boolean }

/** Pages read so far, out of all: reported at most every PROGRESS_MS, and once when all are read. */
export type PageProgress = (done: number, total: number) => void;
const PROGRESS_MS = 250;

export async function pdfToMarkdown(bytes: Uint8Array, onPages?: PageProgress): Promise<{ markdown: string; nbPages: number }> {
  const pdf = await openPdf(bytes);
  try {
    const nbPages = checkedPageCount(pdf.numPages);
    // Reading the pages is most of a large PDF's conversion (10 s for 2,000 pages here): without
    // this its status said `converting` 0 of 1 all along.
    let read = 0;
    let reported = Date.now();
    const pagesLines = await mapWindowed(nbPages, PAGES_IN_FLIGHT, async (i) => {
      const p = i + 1;
      try {
        const page = await pdf.getPage(p);
        const content = await page.getTextContent();
        read++;
        if (onPages && (read === nbPages || Date.now() - reported >= PROGRESS_MS)) {
          reported = Date.now();
          onPages(read, nbPages);
        }
        return groupLines((content.items as unknown[]).filter((it): it is RawItem => typeof (it as RawItem).str === "string"));
      } catch (err) {
        logPdfError(`pdf.js could not read page ${p} of a PDF`, err);
        throw new ConversionError(`could not read PDF: page ${p} is damaged and its text cannot be read`);
      }
    });
    const chars = pagesLines.reduce((n, ls) => n + ls.reduce((m, l) => m + l.text.replace(/\s/g, "").length, 0), 0);
    if (chars === 0) throw new ConversionError(NO_TEXT_LAYER);
    const headings = pickHeadingSizes(pagesLines.flat());
    const bodies = pagesLines.map((lines) => layoutPage(lines, headings));
    return { markdown: joinPages(bodies), nbPages };
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}

/**
 * pdf.js passes some impossible page counts of the page tree through (/Count -5 gives numPages -5), which
 * would surface as a RangeError far from their cause.
 */
function checkedPageCount(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new ConversionError(`could not read PDF: its page tree declares an invalid page count (${n})`);
  if (n === 0) throw new ConversionError("the PDF has no pages");
  return n;
}

// pdf.js answers page requests through a message queue; keeping several in flight overlaps parsing with our
// layout work, while the window keeps memory bounded on huge documents.
const PAGES_IN_FLIGHT = 16;

async function mapWindowed<T>(n: number, window: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, n) }, worker));
  return out;
}

/** Groups text items into visual lines: a new line on an explicit EOL or a baseline jump. */
function groupLines(items: RawItem[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let cur: PdfLine | null = null;
  let lastEnd = 0;
  let eol = false;
  for (const it of items) {
    const [a, b, , , x, y] = it.transform as [number, number, number, number, number, number];
    const size = Math.hypot(a, b) || it.height || 0;
    if (!it.str) {
      if (it.hasEOL) eol = true;
      continue;
    }
    if (!cur || eol || Math.abs(y - cur.y) > Math.max(2, 0.5 * Math.min(size || cur.size, cur.size || size))) {
      cur = { text: "", y, x, size, chars: 0 };
      lines.push(cur);
    } else if (cur.text && !/\s$/.test(cur.text) && !/^\s/.test(it.str) && x - lastEnd > 0.15 * size) {
      cur.text += " ";
    }
    cur.text += it.str;
    const n = it.str.replace(/\s/g, "").length;
    // the line's size is the one carrying most of its characters
    if (n > cur.chars) cur.size = size;
    cur.chars = Math.max(cur.chars, n);
    lastEnd = x + it.width;
    eol = it.hasEOL;
  }
  for (const l of lines) l.text = l.text.replace(/\s+/g, " ").trim();
  return lines.filter((l) => l.text.length > 0);
}
