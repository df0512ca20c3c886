// One end-to-end scenario run against every model tier (built-in, local, remote, and with the
// network cut off): org → corpus → a multi-page PDF and a markdown document uploaded through the
// presigned flow → session → one question → attachments and the model list.
// It throws on any protocol failure and returns plain data, so it also runs outside `bun test`
// (the offline runner prints the result as JSON); tier-specific assertions live in the tests.
import { ingestDocument } from "../helpers/ingest.ts";
import { PDFDocument, StandardFonts } from "pdf-lib";
import type { Kbqa, Org } from "../helpers/server.ts";

/** The fact the question asks about; on page 2 of the PDF, so citations can name the page. */
export const FACT = "The keeper of the Kestrel lighthouse feeds seventeen gulls every morning.";
export const QUESTION = "How many gulls does the keeper of the Kestrel lighthouse feed?";
export const PDF_PAGES = [
  ["The Kestrel lighthouse stands on Corran Point."],
  [FACT],
  ["Heavy fog closes the harbour each November."],
];
export const MARKDOWN = "# Orchard\n\nThe Bramley orchard grows four hundred apple trees.\n";
/** Every word of the documents and the question, for tiny test vocabularies. */
export const WORDS = [...new Set([...PDF_PAGES.flat(), MARKDOWN, QUESTION].join(" ").toLowerCase().match(/[a-z]+/g)!)];

export interface ModelRow { id: string; role: string; tier: string; default: boolean; dims?: number }
export interface PostRow { id: string; owner: string; body: string; agentId: string; attachment: number; lang: string }
export interface AttachmentRow { docId: string; summary: string | null; pages: number[]; metadata: Record<string, unknown> }

export interface ScenarioResult {
  models: ModelRow[];
  defaults: { embedding?: string; chat?: string };
  pdfId: string;
  mdId: string;
  pdfPages: number;
  query: PostRow;
  answer: PostRow;
  /** GET /v1/post/{answerId}: the stored answer */
  stored: PostRow;
  attachments: AttachmentRow[];
  queryMs: number;
}

function must(cond: unknown, what: string, got?: unknown): asserts cond {
  if (!cond) throw new Error(`scenario: ${what}${got === undefined ? "" : ` (got ${JSON.stringify(got).slice(0, 500)})`}`);
}

export async function makePdf(pages: string[][]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([595, 842]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 18, size: 11, font }));
  }
  return pdf.save();
}

/** init → PUT the bytes with the declared Content-Type → commit → status READY. */
export const upload = (k: Kbqa, org: Org, corpusId: string, filename: string, bytes: Uint8Array | string, contentType: string, extra: Record<string, unknown> = {}) =>
  ingestDocument(k, org, corpusId, filename, bytes, contentType, extra);

export async function runScenario(k: Kbqa): Promise<ScenarioResult> {
  const org = await k.org();
  const corpus = await org.api("POST", "/v1/corpus/", { name: "tiers" });
  must(corpus.status === 200, "POST /v1/corpus/ → 200", corpus);
  const corpusId: string = corpus.body.id;

  // One chunk per page, so the page of the fact is the page of its chunk.
  const perPage = { chunk: { multipage_sections: false, combine_text_under_n_chars: 0 } };
  const pdfId = await upload(k, org, corpusId, "kestrel.pdf", await makePdf(PDF_PAGES), "application/pdf", perPage);
  const mdId = await upload(k, org, corpusId, "orchard.md", MARKDOWN, "text/markdown");
  const pdfDoc = await org.api("GET", `/v1/doc/${pdfId}`);
  must(pdfDoc.status === 200, "GET /v1/doc/{pdf} → 200", pdfDoc);

  const session = await org.api("POST", "/v1/session/", { corpusIds: [corpusId] });
  must(session.status === 200, "POST /v1/session/ → 200", session);

  const started = performance.now();
  const q = await org.api("GET", `/v1/post/q?${new URLSearchParams({ sessionId: session.body.id, body: QUESTION })}`);
  const queryMs = Math.round(performance.now() - started);
  must(q.status === 200, "GET /v1/post/q → 200", q);
  const answer: PostRow = q.body.answer;
  must(answer?.owner === "SYSTEM" && q.body.query?.owner === "USER", "the exchange holds a USER question and a SYSTEM answer", q.body);

  const stored = await org.api("GET", `/v1/post/${answer.id}`);
  must(stored.status === 200, "GET /v1/post/{answerId} → 200", stored);
  const att = await org.api("GET", `/v1/post/attachment/${answer.id}`);
  must(att.status === 200 && Array.isArray(att.body), "GET /v1/post/attachment/{answerId} → 200 with a list", att);

  const models = await org.api("GET", "/v1/config/model");
  must(models.status === 200 && Array.isArray(models.body?.items), "GET /v1/config/model → 200 with items", models);
  const items: ModelRow[] = models.body.items;
  const def = (role: string) => items.find((m) => m.role === role && m.default)?.id;

  return {
    models: items,
    defaults: { embedding: def("embedding"), chat: def("chat") },
    pdfId,
    mdId,
    pdfPages: pdfDoc.body.nbPages,
    query: q.body.query,
    answer,
    stored: stored.body,
    attachments: att.body,
    queryMs,
  };
}
