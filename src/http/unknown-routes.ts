import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "./auth-plugin.ts";
import { AppError } from "./errors.ts";

/**
 * Any /v1 path or method the API does not have. Behind the credential like every /v1 route, so a
 * caller without a valid one gets 403 (spec, Authentication rule 5) and learns nothing about
 * which paths exist; with one, 404. Registered last: Elysia prefers every static and
 * parameterised route to a wildcard.
 */
export function unknownApiRoutes(ctx: AppContext) {
  return new Elysia({ name: "unknown-api-routes" })
    .use(authPlugin(ctx))
    .all("/v1/*", ({ request, path }) => {
      throw new AppError("NOT_FOUND", `No route for ${request.method} ${path}`);
    }, { detail: { hide: true } });
}
