import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { Ack, ack, PageQuery, paging } from "../http/paging.ts";
import { confinedTo } from "../auth/jwt.ts";
import { ByMetadataQuery, ByUserQuery, Session, SessionCreate, SessionPage, SessionPatch, SessionQuery } from "./schema.ts";
import type { SessionService } from "./service.ts";

const Id = t.Object({ sessionId: t.String({ format: "uuid" }) });
const deprecated = { hide: true, deprecated: true } as const;

export function sessionRoutes(ctx: AppContext, sessions: SessionService) {
  return new Elysia({ prefix: "/v1/session", detail: { tags: ["Session"] } })
    .use(authPlugin(ctx))
    .post("/", ({ principal, body }) => sessions.create(principal.orgId, principal.userId, body), {
      body: SessionCreate,
      response: Session,
      detail: { summary: "Open a session over one or more corpora" },
    })
    .get("/", ({ principal, query }) => sessions.list(principal.orgId, paging(query), confinedTo(principal)), {
      query: t.Object(PageQuery),
      response: SessionPage,
      detail: { summary: "List the organization's sessions, newest first" },
    })
    .get("/q", ({ principal, query }) => sessions.query(principal.orgId, query, paging(query), confinedTo(principal)), {
      query: SessionQuery,
      response: SessionPage,
      detail: { summary: "Search sessions by owner, corpus and metadata (containment), newest first" },
    })
    // The deprecated searches apply their own parameters only: the rest of the query string is
    // ignored, not handed to the search (a stray `key` or `json` refused or narrowed them).
    .get("/byUser", ({ principal, query }) => sessions.query(principal.orgId, { userId: query.userId, corpusId: query.corpusId }, paging(query), confinedTo(principal)), {
      query: ByUserQuery,
      detail: deprecated,
    })
    .get("/byMetadata", ({ principal, query }) => sessions.query(principal.orgId, { key: query.key, value: query.value }, paging(query), confinedTo(principal)), {
      query: ByMetadataQuery,
      detail: deprecated,
    })
    .get("/:sessionId", ({ principal, params }) => sessions.get(principal.orgId, params.sessionId, confinedTo(principal)), {
      params: Id,
      response: Session,
      detail: { summary: "Get a session" },
    })
    .patch("/:sessionId", ({ principal, params, body }) => sessions.patch(principal.orgId, params.sessionId, body, confinedTo(principal)), {
      params: Id,
      body: SessionPatch,
      response: Session,
      detail: { summary: "Replace a session's metadata" },
    })
    .delete(
      "/:sessionId",
      ({ principal, params }) => {
        sessions.remove(principal.orgId, principal.userId, params.sessionId, confinedTo(principal));
        return ack(`Session ${params.sessionId} deleted`, ctx.clock.now());
      },
      { params: Id, response: Ack, detail: { summary: "Delete a session (soft)" } },
    );
}
