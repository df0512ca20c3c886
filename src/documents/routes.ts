import { confinedTo } from "../auth/jwt.ts";
import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { Ack, ack, normalLang, paging } from "../http/paging.ts";
import { badRequest, conflict, forbidden } from "../http/errors.ts";
import { ACCEPTED_FORMATS, mediaType } from "../ingest/formats.ts";
import type { Presigner } from "../storage/presigner.ts";
import {
  AcceptView, DocInit, DocListQuery, DocPageView, DocPatch, DocSearchQuery, DocStatusView, Document,
  DownloadUrlView, PreviewQuery, PreviewUrlsView, UploadGrant,
} from "./schema.ts";
import type { DocumentService } from "./service.ts";
import { searchDocuments, type DocFilter } from "./search.ts";
import { timeField } from "./fields.ts";
import { STATUSES } from "./rows.ts";
import { waitForSummary } from "./summary.ts";
import { downloadUrl, pagesInRange, parsePages, previewUrls, requireUpload } from "./urls.ts";

const Id = t.Object({ id: t.String({ format: "uuid" }) });

/** Where presigned URLs point: the configured public URL, else the origin the client used. */
export const publicOrigin = (ctx: AppContext, request: Request) => ctx.config.publicUrl?.replace(/\/+$/, "") ?? new URL(request.url).origin;

/** Shared by /v1/doc/{id}/… and the /v1/post/attachment/{docId}/… aliases: identical answers. */
export function documentUrls(ctx: AppContext, docs: DocumentService, sign: Presigner) {
  return {
    download: (orgId: string, id: string, request: Request) => downloadUrl(ctx.blobs, sign, docs.row(orgId, id), ctx.clock.now(), publicOrigin(ctx, request)),
    /**
     * A malformed `pages` is a 400 first; then, as download-url, a document nothing has been
     * uploaded for is a 409; then pages whose tiles can never exist are a 400 (pagesInRange). Only
     * PDFs get previews (wantsPreviews), so any other document is known to have no pages. Tiles are
     * rendered only once a document is READY, and a FAILED generation never becomes READY (new
     * content is a new generation), so a FAILED one is a 409 as its summary is.
     */
    async previews(orgId: string, id: string, request: Request) {
      const r = docs.row(orgId, id);
      const pages = parsePages(new URL(request.url).searchParams.getAll("pages"));
      await requireUpload(ctx.blobs, r);
      if (r.status === "FAILED") throw conflict(`Document ingestion failed, so it has no previews: ${r.status_msg ?? "no reason recorded"}`);
      const pdf = mediaType(r.content_type) === "application/pdf";
      pagesInRange(pages, { nbPages: r.nb_pages, known: r.nb_pages > 0 || r.status === "READY" || !pdf, renderLimit: pdf ? ctx.config.previewMaxPages : null });
      return previewUrls(sign, r, pages, ctx.clock.now(), publicOrigin(ctx, request));
    },
  };
}

export function documentRoutes(ctx: AppContext, docs: DocumentService, sign: Presigner, corpusOwned: (orgId: string, id: string) => boolean) {
  const urls = documentUrls(ctx, docs, sign);

  /**
   * A listing names its corpus as a filter: one that is not a corpus of the caller's
   * organization answers 403, as the spec rules for chunk and session queries, without
   * telling "another organization's" from "no such corpus". The caller's own deleted corpus
   * holds no live document: an empty page, as chunk and session searches answer.
   */
  const filterOf = (orgId: string, q: Record<string, unknown>, request: Request, search: boolean): DocFilter => {
    const corpusId = q.corpusId as string;
    if (!corpusOwned(orgId, corpusId)) throw forbidden(`Corpus ${corpusId} is not a corpus of your organization`);
    // Tags are read raw: a tag may contain a comma, so only repetition lists several.
    const tags = new URL(request.url).searchParams.getAll("tags").map((s) => s.trim()).filter(Boolean);
    const status = q.status as string[] | undefined;
    const wrong = status?.find((s) => !(STATUSES as readonly string[]).includes(s));
    if (wrong !== undefined) throw badRequest(`Invalid query parameter 'status': "${wrong.slice(0, 32)}" is not one of ${STATUSES.join(", ")}`);
    // The plain listing takes only the spec's listing parameters; others are ignored, as unknown ones are.
    if (!search) return { corpusId, tags, status };
    const createdAfter = timeField(q.createdAfter as string | undefined, "createdAfter", "query parameter") ?? undefined;
    const createdBefore = timeField(q.createdBefore as string | undefined, "createdBefore", "query parameter") ?? undefined;
    if (createdAfter !== undefined && createdBefore !== undefined && createdAfter >= createdBefore) {
      throw badRequest("Invalid query parameter 'createdAfter': must be before createdBefore");
    }
    return {
      corpusId,
      q: q.q as string | undefined,
      tags,
      tagsMatch: q.tagsMatch as DocFilter["tagsMatch"],
      status,
      contentType: q.contentType as string | undefined,
      // Stored with its language part in lower case; read the filter the same way.
      lang: normalLang(q.lang as string | undefined),
      provider: q.provider as string | undefined,
      createdAfter,
      createdBefore,
      sort: q.sort as DocFilter["sort"],
      order: q.order as DocFilter["order"],
    };
  };

  return new Elysia({ prefix: "/v1/doc", detail: { tags: ["Document"] } })
    .use(authPlugin(ctx))
    .get("/accept", () => ({ items: ACCEPTED_FORMATS.map((f) => ({ contentType: f.contentType, name: f.name, extensions: f.extensions })) }), {
      response: AcceptView,
      detail: { summary: "Accepted content types" },
    })
    // A visitor's token (auth/jwt.ts confinedTo) acts as its user: it cannot file a document,
    // and its storage usage, under another user's name.
    .post("/init", ({ principal, body, request }) => docs.init(principal.orgId, principal.userId, confinedTo(principal) ? { ...body, userId: principal.userId } : body, publicOrigin(ctx, request)), {
      body: DocInit,
      response: UploadGrant,
      detail: { summary: "Create a document and get a single-use presigned upload URL" },
    })
    .get("/", ({ principal, query, request }) => searchDocuments(ctx.db, principal.orgId, filterOf(principal.orgId, query, request, false), paging(query)), {
      query: DocListQuery,
      response: DocPageView,
      detail: { summary: "List a corpus's documents, newest first" },
    })
    .get("/q", ({ principal, query, request }) => searchDocuments(ctx.db, principal.orgId, filterOf(principal.orgId, query, request, true), paging(query)), {
      query: DocSearchQuery,
      response: DocPageView,
      detail: { summary: "Search a corpus's documents" },
    })
    .get("/:id", ({ principal, params }) => docs.get(principal.orgId, params.id), {
      params: Id,
      response: Document,
      detail: { summary: "Get a document" },
    })
    .get("/:id/status", ({ principal, params }) => docs.status(principal.orgId, params.id), {
      params: Id,
      response: DocStatusView,
      detail: { summary: "Ingestion status (poll this)" },
    })
    .post(
      "/:id/commit",
      async ({ principal, params, set }) => {
        const r = await docs.commit(principal.orgId, params.id);
        set.status = r.code;
        return r.document;
      },
      { params: Id, response: { 200: Document, 202: Document }, detail: { summary: "Commit the upload: 202 PROCESSING (READY: 200, unchanged)" } },
    )
    .put("/:id/init", ({ principal, params, request }) => docs.replace(principal.orgId, params.id, publicOrigin(ctx, request)), {
      params: Id,
      response: UploadGrant,
      detail: { summary: "Replace the content of a READY or FAILED document (needs doc:update)" },
    })
    .patch("/:id", ({ principal, params, body }) => docs.patch(principal.orgId, params.id, body), {
      params: Id,
      body: DocPatch,
      response: Document,
      detail: { summary: "Update present fields; renaming moves and re-ingests nothing" },
    })
    .get(
      "/:id/summary",
      async ({ principal, params, request, recheck }) => {
        const md = await waitForSummary(ctx.db, principal.orgId, params.id, ctx.config.summaryWaitMs, request.signal, recheck);
        return new Response(md, { headers: { "content-type": "text/markdown; charset=utf-8" } });
      },
      {
        params: Id,
        detail: {
          summary: "Markdown summary; waits until it exists (bounded by --summary-wait-ms, then 504)",
          responses: { 200: { description: "The summary", content: { "text/markdown": { schema: { type: "string" } } } } },
        },
      },
    )
    .get("/:id/download-url", ({ principal, params, request }) => urls.download(principal.orgId, params.id, request), {
      params: Id,
      response: DownloadUrlView,
      detail: { summary: "Presigned URL for the original file" },
    })
    .get("/:id/preview-urls", ({ principal, params, request }) => urls.previews(principal.orgId, params.id, request), {
      params: Id,
      query: PreviewQuery,
      response: PreviewUrlsView,
      detail: { summary: "Presigned SMALL and MEDIUM preview URLs for 1 to 10 pages" },
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        docs.remove(principal.orgId, params.id);
        return ack(`Document ${params.id} deleted`, ctx.clock.now());
      },
      { params: Id, response: Ack, detail: { summary: "Delete a document (soft), cascading to its chunks; the file stays in storage" } },
    );
}
