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
  // Deliberately not an async function: Elysia awaits a returned promise, and the common case
  // (a token seen before, or an access token) then stays synchronous, which is much faster.
  return new Elysia({ name: "auth" }).derive({ as: "scoped" }, ({ request, path }) => {
    const found = authenticate(
      ctx.db,
      { authorization: request.headers.get("authorization"), accessToken: request.headers.get("x-access-token") },
      ctx.clock.now(),
    );
    return found instanceof Promise ? found.then((p) => admit(p, request.method, path)) : admit(found, request.method, path);
  });
}

function admit(principal: Principal, method: string, path: string): { principal: Principal } {
  if (WIDGET_PREFIXES.some((p) => path.startsWith(p))) {
    // The widget family has no scope name and is for access tokens only (spec rule 9).
    if (principal.kind !== "token") throw new AppError("FORBIDDEN", "The widget endpoints take an access token (X-Access-Token)");
  } else {
    authorize(principal, method, path);
  }
  return { principal };
}
