import { Elysia, t } from "elysia";
import { Ack, DisplayName, Timestamp, USER_ID_MAX } from "../http/paging.ts";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { AppError } from "../http/errors.ts";
import { iso } from "../store/time.ts";
import { isScopeEntry } from "./scope.ts";
import { createAccessToken, revokeAccessToken } from "./tokens.ts";

const TokenBody = t.Object({
  scope: t.Array(t.String(), { minItems: 1, description: "non-empty list of DOMAIN:ACTION entries" }),
  ttl: t.Optional(t.Integer({ title: "ttl", exclusiveMinimum: 10, description: "seconds, > 10, default 3600 (or --max-token-ttl when lower)" })),
  issuer: t.Optional(DisplayName(256)),
  email: t.Optional(t.String({ maxLength: 320 })),
  userId: t.Optional(DisplayName(USER_ID_MAX)),
});

const TokenView = t.Object({ token: t.String(), scope: t.Array(t.String()), createdAt: Timestamp(), expiresAt: Timestamp() });

const Whoami = t.Object({
  orgId: t.String(),
  userId: t.String(),
  email: t.Optional(t.String()),
  name: t.Optional(t.String()),
  scope: t.Array(t.String()),
  credential: t.String(),
});

export function authRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/v1/auth", detail: { tags: ["Auth"] } })
    .use(authPlugin(ctx))
    .post(
      "/access-token",
      ({ principal, body }) => {
        if (principal.kind !== "jwt") throw new AppError("FORBIDDEN", "Access tokens can only be created with an RSA JWT");
        const bad = body.scope.findIndex((s) => !isScopeEntry(s));
        // Quoted in part: an entry may be megabytes long, and the refusal would carry it all back.
        if (bad >= 0) throw new AppError("BAD_REQUEST", `Invalid body field 'scope[${bad}]': "${body.scope[bad]!.slice(0, 64)}" is not DOMAIN:ACTION`);
        // A restricted caller cannot mint a token wider than itself.
        if (principal.scope.length > 0) {
          const wider = body.scope.find((s) => !principal.scope.includes(s));
          if (wider) throw new AppError("FORBIDDEN", `Scope entry "${wider}" is not in the caller's own scope`);
        }
        // The spec's default, unless the operator capped lifetimes lower: then the cap, since a
        // request that left ttl out must not be refused for a field it never sent.
        const ttl = body.ttl ?? Math.min(3600, ctx.config.maxTokenTtl);
        if (ttl > ctx.config.maxTokenTtl) {
          throw new AppError("BAD_REQUEST", `Invalid body field 'ttl': at most ${ctx.config.maxTokenTtl} seconds`);
        }
        // A token for another user (a widget visitor) is that user's identity: the creator's
        // email and name stay with the creator instead of reaching the visitor's browser.
        const forCaller = body.userId === undefined || body.userId === principal.userId;
        const tok = createAccessToken(
          ctx.db,
          principal.orgId,
          {
            scope: [...new Set(body.scope)],
            ttl,
            userId: body.userId ?? principal.userId,
            email: body.email ?? (forCaller ? principal.email : undefined),
            name: forCaller ? principal.name : undefined,
            issuer: body.issuer,
            // A visitor's token is confined to the visitor's own sessions; one for the caller is
            // the caller's own identity (a token minted by a confined one cannot exist: JWT only).
            confined: !forCaller,
          },
          ctx.clock.now(),
        );
        return { token: tok.token, scope: tok.scope, createdAt: iso(tok.createdAt), expiresAt: iso(tok.expiresAt) };
      },
      { body: TokenBody, response: TokenView, detail: { summary: "Create a scoped access token (RSA JWT callers only)" } },
    )
    .delete(
      "/access-token/:token",
      ({ principal, params }) => {
        if (!revokeAccessToken(ctx.db, principal.orgId, params.token, ctx.clock.now())) {
          throw new AppError("NOT_FOUND", "Access token not found");
        }
        return { timestamp: iso(ctx.clock.now()), message: "Access token revoked" };
      },
      { params: t.Object({ token: t.String() }), response: Ack, detail: { summary: "Revoke an access token at once" } },
    )
    .get(
      "/whoami",
      ({ principal }) => ({
        orgId: principal.orgId,
        userId: principal.userId,
        email: principal.email,
        name: principal.name,
        scope: principal.scope,
        credential: principal.kind === "jwt" ? "jwt" : "access-token",
      }),
      { response: Whoami, detail: { summary: "Identity of the caller" } },
    );
}
