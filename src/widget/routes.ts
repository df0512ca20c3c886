import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { AppError, badRequest } from "../http/errors.ts";
import { paging } from "../http/paging.ts";
import { confinedTo, type Principal } from "../auth/jwt.ts";
import { liveAttachments } from "../posts/citations.ts";
import type { PostService } from "../posts/service.ts";
import type { QueryInput, QueryService } from "../posts/query.ts";
import { askQuestion } from "../posts/ask.ts";
import type { SessionService } from "../sessions/service.ts";
import { LegacyAsk, LegacyLang, PostIdParams, WidgetAsk, WidgetInit, WidgetList } from "./schema.ts";

export interface WidgetDeps {
  sessions: SessionService;
  posts: PostService;
  queries: QueryService;
}

// Deprecated family (spec, Versioning 4): served, absent from the published OpenAPI document.
const hidden = { hide: true, deprecated: true, tags: ["Widget"] };

/**
 * Backend of the embeddable widget: thin aliases of the session and post operations. The auth
 * plugin admits access tokens only here, each path under the scope of the operation it stands
 * for (auth/scope.ts); the organization and the user come from the token, every id is checked
 * against that organization.
 */
export function widgetRoutes(ctx: AppContext, { sessions, posts, queries }: WidgetDeps) {
  const ask = (principal: Principal, input: QueryInput, request: Request, path: string, recheck: () => Promise<void>) =>
    askQuestion(queries, ctx.log, principal, input, request, path, recheck);

  const current = new Elysia({ prefix: "/v1/webhook/widget" })
    .use(authPlugin(ctx))
    .post("/init", ({ principal, body }) => sessions.create(principal.orgId, principal.userId, body), { body: WidgetInit, detail: hidden })
    .post("/q", ({ principal, body, request, path, recheck }) => ask(principal, body, request, path, recheck), { body: WidgetAsk, detail: hidden })
    .get("/q", ({ principal, query, request, path, recheck }) => askQuestion(queries, ctx.log, principal, query, request, path, recheck, ["GET", "POST"]), {
      query: WidgetAsk,
      detail: hidden,
    })
    .get("/", ({ principal, query }) => posts.list(principal.orgId, query.sessionId, paging(query), query.order ?? "DESC", confinedTo(principal)), {
      query: WidgetList,
      detail: hidden,
    })
    .get(
      "/attachment/:postId",
      ({ principal, params }) => {
        const post = posts.visible(principal.orgId, params.postId, confinedTo(principal));
        return post.owner === "SYSTEM" ? liveAttachments(ctx.db, principal.orgId, post.id) : [];
      },
      { params: PostIdParams, detail: hidden },
    );

  const firstGeneration = new Elysia({ prefix: "/webhook/v1/widget" }).use(authPlugin(ctx)).post(
    "/:lang",
    async ({ principal, params, body, request, recheck }) => {
      const corpusIds = body.corpusIds ?? [];
      if (!body.sessionId) {
        if (!corpusIds.length) throw badRequest("Invalid body field 'corpusIds': required when no sessionId is sent");
        // The path's scope (auth/scope.ts) covers the query; the session it opens needs its own.
        if (principal.scope.length && !principal.scope.includes("session:create")) {
          throw new AppError("FORBIDDEN", "Opening a session (no sessionId sent) needs the session:create scope");
        }
      }
      const open = {
        check: () => sessions.check(principal.orgId, { corpusIds }),
        create: (at: number) => sessions.create(principal.orgId, principal.userId, { corpusIds }, at).id,
      };
      const prepared = await queries.prepare(principal, { sessionId: body.sessionId ?? "", body: body.body, lang: params.lang, agentId: body.agentId }, open);
      // Revoked while the answer was generated: the request fails, and no session or post is stored.
      const exchange = await queries.run(prepared, { signal: request.signal, recheck });
      return { sessionId: exchange.query.sessionId, ...exchange };
    },
    { params: LegacyLang, body: LegacyAsk, detail: hidden },
  );

  return new Elysia().use(current).use(firstGeneration);
}
