import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authenticate, authorize } from "../auth/authenticate.ts";
import type { Principal } from "../auth/jwt.ts";
import { AppError } from "./errors.ts";

const WIDGET_PREFIXES = ["/v1/webhook/", "/webhook/v1/"];

/**
 * Resolves the caller before validation, so a request without a valid credential learns
 * nothing (403) about its parameters. Routes read `principal`; the organization is never
 * taken from anywhere else.
 */
export function authPlugin(ctx: AppContext) {
  return new Elysia({ name: "auth" }).derive({ as: "scoped" }, async ({ request, path }) => {
    const principal: Principal = await authenticate(
      ctx.db,
      { authorization: request.headers.get("authorization"), accessToken: request.headers.get("x-access-token") },
      ctx.clock.now(),
    );
    if (WIDGET_PREFIXES.some((p) => path.startsWith(p))) {
      // The widget family has no scope name and is for access tokens only (spec rule 9).
      if (principal.kind !== "token") throw new AppError("FORBIDDEN", "The widget endpoints take an access token (X-Access-Token)");
    } else {
      authorize(principal, request.method, path);
    }
    return { principal };
  });
}
