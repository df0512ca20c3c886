import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { AppError } from "../http/errors.ts";
import { isUuid } from "../store/ids.ts";
import type { Presigner } from "../storage/presigner.ts";
import type { DocumentService } from "./service.ts";
import { documentUrls } from "./routes.ts";
import { PreviewQuery } from "./schema.ts";

/**
 * GET /v1/post/attachment/{docId}/download-url and …/preview-urls: aliases of the document
 * paths with identical answers, authorized under `post` (the scope table keys on the first
 * segment). They are one wildcard route because the router refuses two different parameter
 * names at one position, and /v1/post/attachment/{postId} (the attachment listing, posts
 * domain) already holds that position.
 */
export function attachmentAliasRoutes(ctx: AppContext, docs: DocumentService, sign: Presigner) {
  const urls = documentUrls(ctx, docs, sign);
  return new Elysia({ prefix: "/v1/post/attachment", detail: { tags: ["Post"] } })
    .use(authPlugin(ctx))
    .get(
      "/*",
      ({ principal, params, request }) => {
        const m = /^([^/]+)\/(download-url|preview-urls)\/?$/.exec(params["*"]);
        if (!m) throw new AppError("NOT_FOUND", `No route for GET ${new URL(request.url).pathname}`);
        const docId = m[1]!;
        if (!isUuid(docId)) throw new AppError("BAD_REQUEST", "Invalid path parameter 'docId': Expected string to match 'uuid' format");
        return m[2] === "download-url" ? urls.download(principal.orgId, docId, request) : urls.previews(principal.orgId, docId, request);
      },
      {
        query: PreviewQuery,
        // No response schema: a union of the two answers fails Elysia's response check; both are the documented doc-path shapes.
        detail: {
          summary: "{docId}/download-url and {docId}/preview-urls: aliases of GET /v1/doc/{id}/download-url and /preview-urls (need post:read)",
        },
      },
    );
}
