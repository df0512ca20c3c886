import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { Ack, ack, paging } from "../http/paging.ts";
import { Attachments, Exchange, Post, PostListQuery, PostPage, QueryBody, QueryParams } from "./schema.ts";
import { liveAttachments } from "./citations.ts";
import type { PostService } from "./service.ts";
import type { QueryInput, QueryService } from "./query.ts";
import { askQuestion } from "./ask.ts";
import { confinedTo, type Principal } from "../auth/jwt.ts";

const Id = t.Object({ postId: t.String({ format: "uuid" }) });
// The router needs one parameter name per position: /attachment/{id} (a post) shares it with
// the document aliases /attachment/{id}/download-url|preview-urls (src/documents/attachment-routes.ts).
// Named `id` for the router (one name per position, shared with the document aliases); `title`
// is the spec's name, which validation errors use.
const AttachmentId = t.Object({ id: t.String({ format: "uuid", title: "postId", description: "id of the answer post" }) });

export function postRoutes(ctx: AppContext, posts: PostService, queries: QueryService) {
  const ask = (principal: Principal, input: QueryInput, request: Request, path: string, recheck: () => Promise<void>) =>
    askQuestion(queries, ctx.log, principal, input, request, path, recheck);

  return new Elysia({ prefix: "/v1/post", detail: { tags: ["Post"] } })
    .use(authPlugin(ctx))
    .get("/q", ({ principal, query, request, path, recheck }) => ask(principal, query, request, path, recheck), {
      query: QueryParams,
      detail: {
        summary: "Ask a question: stores the question, runs retrieval and the answering model, stores the answer",
        description:
          "Returns {query, answer}. With `Accept: text/event-stream` the answer is streamed as server-sent events: " +
          "`token` events ({text}) while it is generated, then `done` ({query, answer}); a failure after streaming " +
          "started arrives as an `error` event carrying the error object. Usable with post:read or post:create.",
        responses: { 200: { description: "The stored question and answer", content: { "application/json": { schema: Exchange } } } },
      } as never,
    })
    .post("/", ({ principal, body, request, path, recheck }) => ask(principal, body, request, path, recheck), {
      body: QueryBody,
      detail: { hide: true, deprecated: true },
    })
    .get("/", ({ principal, query }) => posts.list(principal.orgId, query.sessionId, paging(query), query.order ?? "DESC", confinedTo(principal)), {
      query: PostListQuery,
      response: PostPage,
      detail: { summary: "List the posts of a session (createdAt, then id; DESC by default)" },
    })
    .get(
      "/attachment/:id",
      ({ principal, params }) => {
        const post = posts.visible(principal.orgId, params.id, confinedTo(principal));
        return post.owner === "SYSTEM" ? liveAttachments(ctx.db, principal.orgId, post.id) : [];
      },
      {
        params: AttachmentId,
        response: Attachments,
        detail: { summary: "Attachments of an answer, one per document, with the pages used (deleted or replaced chunks drop out)" },
      },
    )
    .get("/:postId", ({ principal, params }) => posts.get(principal.orgId, params.postId, confinedTo(principal)), {
      params: Id,
      response: Post,
      detail: { summary: "Get a post" },
    })
    .delete(
      "/:postId",
      ({ principal, params }) => {
        posts.remove(principal.orgId, principal.userId, params.postId, confinedTo(principal));
        return ack(`Post ${params.postId} deleted`, ctx.clock.now());
      },
      { params: Id, response: Ack, detail: { summary: "Delete a post (soft)" } },
    );
}
