import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import type { Presigner } from "../storage/presigner.ts";
import type { DocumentService } from "./service.ts";
import { documentUrls } from "./routes.ts";
import { DownloadUrlView, PreviewQuery, PreviewUrlsView } from "./schema.ts";

/**
 * GET /v1/post/attachment/{docId}/download-url and …/preview-urls: aliases of the document
 * paths with identical answers, authorized under `post` (the scope table keys on the first
 * segment). The parameter is called `id` because the router allows one name per position and
 * /v1/post/attachment/{id} (the attachment listing of a post) holds that position; its `title`
 * is the spec's name, which validation errors use.
 */
const DocId = t.Object({ id: t.String({ format: "uuid", title: "docId", description: "id of the cited document" }) });

export function attachmentAliasRoutes(ctx: AppContext, docs: DocumentService, sign: Presigner) {
  const urls = documentUrls(ctx, docs, sign);
  return new Elysia({ prefix: "/v1/post/attachment", detail: { tags: ["Post"] } })
    .use(authPlugin(ctx))
    .get("/:id/download-url", ({ principal, params, request }) => urls.download(principal.orgId, params.id, request), {
      params: DocId,
      response: DownloadUrlView,
      detail: { summary: "Alias of GET /v1/doc/{id}/download-url (needs post:read)" },
    })
    .get("/:id/preview-urls", ({ principal, params, request }) => urls.previews(principal.orgId, params.id, request), {
      params: DocId,
      query: PreviewQuery,
      response: PreviewUrlsView,
      detail: { summary: "Alias of GET /v1/doc/{id}/preview-urls (needs post:read)" },
    });
}
