import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "./auth-plugin.ts";
import { AppError, errorBody, STATUS_OF } from "./errors.ts";

interface RouteLike {
  method: string;
  path: string;
}

/** The app's routes as (method, pattern) pairs from their `:param` and `*` paths; the catch-all itself left out. */
function patterns(routes: readonly RouteLike[]): { method: string; re: RegExp }[] {
  return routes
    .filter((r) => r.method !== "ALL" && r.path !== "/v1/*")
    .map((r) => ({ method: r.method, re: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*")}$`) }));
}

/**
 * Any /v1 path or method the API does not have. Behind the credential like every /v1 route, so a
 * caller without a valid one gets 403 (spec, Authentication rule 5) and learns nothing about
 * which paths exist; with one, 405 with `Allow` for a path served under other methods, else 404.
 * Registered last: Elysia prefers every static and parameterised route to a wildcard.
 */
export function unknownApiRoutes(ctx: AppContext, routes: () => readonly RouteLike[]) {
  let compiled: { method: string; re: RegExp }[] | undefined;
  return new Elysia({ name: "unknown-api-routes" })
    .use(authPlugin(ctx))
    .all(
      "/v1/*",
      ({ request, path }) => {
        // The route table is complete once the app is built: its patterns are compiled on first use.
        compiled ??= patterns(routes());
        const allowed = [...new Set(compiled.filter((r) => r.re.test(path)).map((r) => r.method))].sort();
        if (allowed.length === 0) throw new AppError("NOT_FOUND", `No route for ${request.method} ${path}`);
        const status = STATUS_OF.METHOD_NOT_ALLOWED;
        const body = errorBody(status, `${request.method} is not allowed on ${path} (allowed: ${allowed.join(", ")})`, path, { allowed });
        return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", allow: allowed.join(", ") } });
      },
      { detail: { hide: true } },
    );
}
