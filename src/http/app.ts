import "./typebox-setup.ts";
import { Elysia, t } from "elysia";
import { cors } from "./cors.ts";
import { markNoStore } from "./no-store.ts";
import { invalidHost } from "./host.ts";
import { docsAssets, docsSlash } from "./docs-assets.ts";
import { apiDocs, type RouteRecord } from "./openapi-doc.ts";
import { unknownApiRoutes } from "./unknown-routes.ts";
import type { AppContext } from "../context.ts";
import { errorHandler } from "./error-handler.ts";
import { authRoutes } from "../auth/routes.ts";
import { corpusRoutes } from "../corpus/routes.ts";
import { corpusService } from "../corpus/service.ts";
import { chunkRoutes } from "../chunks/routes.ts";
import { chunkService } from "../chunks/service.ts";
import { configRoutes } from "./config-routes.ts";
import { sessionRoutes } from "../sessions/routes.ts";
import { sessionService } from "../sessions/service.ts";
import { agentRoutes } from "../agents/routes.ts";
import { agentService } from "../agents/service.ts";
import { usageRoutes } from "../usage/routes.ts";
import { usageService } from "../usage/service.ts";
import { fakeTimeFileClock } from "../usage/test-clock.ts";
import { widgetRoutes } from "../widget/routes.ts";
import { postRoutes } from "../posts/routes.ts";
import { postServices } from "../posts/index.ts";
import { documentWiring } from "../documents/wiring.ts";
import type { Services } from "./services.ts";
import { requestLog } from "./request-log.ts";
import { queryRules } from "./query-once.ts";
import { quietBodyRefusals } from "./quiet-refusals.ts";
import { VERSION } from "../version.ts";

// In its own module so the CLI can print it without loading the HTTP stack.
export { VERSION };

/**
 * Builds the whole HTTP surface. Deprecated operations carry `detail.hide`, so the published
 * OpenAPI document leaves them out while they stay served (spec, Versioning rule 2).
 */
export function buildApp(ctx: AppContext, services: Services, onEachRequest?: () => void) {
  const allowOrigin = cors(ctx.config.corsOrigins);
  // standardHostname off: Elysia otherwise assumes the URL's host part is at least "http://a.bc"
  // long and cut "/v1" off the path of a request to a short Host such as a container named "api".
  // The document lists the routes of the app being built here, known once it is built.
  let built: { routes: readonly RouteRecord[] } | undefined;
  ctx.queryRules = queryRules(() => built?.routes ?? []);
  const app = new Elysia({ normalize: false, handler: { standardHostname: false } })
    .use(errorHandler(ctx.log))
    .use(ctx.config.logRequests ? requestLog(ctx.log) : new Elysia({ name: "request-log-off" }))
    // One onRequest hook for the whole app: each hook costs every request (two more cost 13 % of
    // the authenticated GET's throughput in bench-auth).
    .onRequest(({ request, set, server }) => {
      onEachRequest?.();
      markNoStore(request, set);
      return invalidHost(request, server) ?? docsSlash(request) ?? allowOrigin(request, set);
    })
    .use(apiDocs(() => built?.routes ?? [], { title: "kbqa", version: VERSION, description: "Self-hosted knowledge-base question answering" }))
    .use(docsAssets())
    // The response schema is there for the published document: a client generated from it had no type for the answer.
    .get("/pub/ping", () => ({ status: "ok" as const, version: VERSION }), {
      response: t.Object({ status: t.Literal("ok"), version: t.String() }),
      detail: { summary: "Health check (no credential)", tags: ["Health"], security: [] },
    })
    .use(authRoutes(ctx))
    .use(configRoutes(ctx))
    .use(corpusRoutes(ctx, services.corpora))
    .use(chunkRoutes(ctx, services.chunks))
    .use(documentWiring.routes(ctx, services))
    .use(sessionRoutes(ctx, services.sessions))
    .use(agentRoutes(ctx, services.agents))
    .use(postRoutes(ctx, services.posts, services.queries))
    .use(usageRoutes(ctx, services.usage))
    .use(widgetRoutes(ctx, services))
    .use(unknownApiRoutes(ctx, () => built?.routes ?? []));
  built = app;
  quietBodyRefusals(app.routes as readonly { hooks?: { body?: unknown } }[]);
  return app;
}

export function buildServices(ctx: AppContext): Services {
  return {
    corpora: corpusService(ctx.db, ctx.clock),
    chunks: chunkService(ctx.db, ctx.clock, () => ctx.vectorDrops?.kick()),
    ...documentWiring.services(ctx),
    sessions: sessionService(ctx.db, ctx.clock),
    agents: agentService(ctx.db, ctx.clock, ctx.models),
    ...postServices(ctx, sessionService(ctx.db, ctx.clock), agentService(ctx.db, ctx.clock, ctx.models)),
    usage: usageService(ctx.db, ctx.config.testFakeTimeFile ? fakeTimeFileClock(ctx.config.testFakeTimeFile) : ctx.clock),
  };
}
